"""Checks of the generators and their sets: the validity audit (proxy rates, labelling samples,
``audit``), human label files matched to a run's pairs (``labels``), labelled development sets and
threshold curves (``devset``), and ``bench doctor``'s resource table (``doctor``).

The top layer of :mod:`perturb`: reads sets from :mod:`perturb.io`."""
