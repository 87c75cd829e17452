"""Fitted weights of the synonym-swap verifier (perturb.generators.swapsyn.verifier), written by
``python -m perturb.tuning fit SET`` from the development rows of perturb/data/validity/SWAPSYN-*.tsv
that precede the pick sample (logistic, standardised features, L2 1.0). Do not edit by hand."""

VERSION = "syn6-2"
FEATURES = ('synonym', 'linked', 't_share', 'c_share', 'cos', 'lrank', 'zipf_drop', 'fit', 'in_context', 'in_term', 'in_coll')
MODELS = {
    'glove': {
        'intercept': -4.80623,
        'weights': [0.429782, 0.304739, 0.475463, 0.286502, 0.159097, -0.312781, -0.181093, 0.28923, -0.039559, -0.360004, -0.192209],
        'mu': [0.060052, 0.075065, 0.069585, 0.067197, 0.713993, 2.553307, 0.306129, -0.05201, 0.047977, 0.680157, 0.208551],
        'sd': [0.237584, 0.263497, 0.220951, 0.220441, 0.095894, 0.841814, 0.408432, 0.129441, 0.213717, 0.466416, 0.406273],
        'rows': 3064,
        'valid': 100,
    },
    'wordnet': {
        'intercept': -3.456366,
        'weights': [0.174551, 0.0, 0.804924, 0.617867, 0.642438, -0.054587, 0.212229, 0.579825, -0.009764, -0.481221, -0.364853],
        'mu': [0.994007, 0.0, 0.218233, 0.378534, 0.466149, 3.286798, 0.920736, -0.184938, 0.183219, 0.492295, 0.181507],
        'sd': [0.077183, 1.0, 0.313361, 0.384934, 0.231878, 0.531882, 0.884516, 0.241363, 0.386846, 0.499941, 0.385438],
        'rows': 1168,
        'valid': 93,
    },
}
