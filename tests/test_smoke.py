"""The README example and the worked blog case, end to end."""

import fastrank


def test_blog_example_all_metrics() -> None:
    y_true = [1, 1, 0, 1, 0, 0, 0, 1, 0]
    y_score = [0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.4, 0.3]
    m = fastrank.all_metrics(y_true, y_score)
    assert m.average_precision == 0.775
    assert m.roc_auc == 0.725
    assert abs(m.pr_auc - 0.7733952088608519) < 1e-12
    assert m.prbe == 0.625
    assert m.prbe_threshold == 0.6
    assert abs(m.average_precision_expected - 0.79375) < 1e-12
