"""Collection of the package's own modules (their doctests run under --doctest-modules).

The torch integration needs torch (and its adapter torchmetrics), optional
extras: without them those modules are not collected, and tests/test_torch.py
skips with the reason.
"""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("torch") is None:
    collect_ignore.append("fastrank/torch.py")
if importlib.util.find_spec("torch") is None or importlib.util.find_spec("torchmetrics") is None:
    collect_ignore.append("fastrank/_torchmetrics.py")
