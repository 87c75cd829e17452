"""Checks of the generators and their sets: the validity audit (proxy rates, labelling samples,
``audit``), human label files matched to a run's pairs (``labels``), labelled development sets and
threshold curves (``devset``), and ``bench doctor``'s resource table (``doctor``).

Above :mod:`perturb.io` (it reads the sets back), below :mod:`benchmarks.tuning` (which reads the
labelled sets of ``devset``)."""
