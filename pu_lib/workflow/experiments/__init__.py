"""The workflow layer: configuration (:mod:`.config`), method specs on the registry
(:mod:`.methods`), the grid-cell runner (:mod:`.runner`) with classifier and class-prior
scoring (:mod:`.classifier_eval`, :mod:`.prior_eval`), and the class-prior reports
(:mod:`.prior_report`).

Estimators (``pu_lib.trees``, ``pu_lib.baselines``, ``pu_lib.prior``) never import this
package (a test checks the import layers).
"""
