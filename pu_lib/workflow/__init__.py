"""The workflow and benchmark machinery of pu_lib, apart from the library: the method
registry (config names -> estimator classes), the experiments (configs, runner, scoring,
scorecards), reports, figures, significance tests and the ``pu-lib`` command line.

No estimator imports this package (a test holds it); it imports the library. Importing it
is cheap: its modules load what they use when they are used.
"""
