"""The implementation of :mod:`fastrank.rankings`, one module per idea:

* ``common``: each sample's labels as one task, and the mean over the samples;
* ``label_ranking``: LRAP, coverage error, label ranking loss, DCG and nDCG of
  label rows;
* ``lists``: the ranked lists' tie groups and the top-k measures of each list;
* ``extreme``: propensities and the propensity-scored measures;
* ``accuracy``: top-k accuracy of a classifier;
* ``combined``: several top-k measures at once.
"""
