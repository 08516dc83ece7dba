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


def pytest_configure(config):
    """Stand-ins count their seconds per test process only. Their record beside the
    kernel cache (``first_calls._carried``, what earlier processes spent) would make
    the path a test takes depend on what ran before it on the machine; the record's
    own tests give it a folder of their own."""
    from fastrank._core import first_calls

    first_calls._carried = {}
