"""The ``torchmetrics.Metric`` adapter of :mod:`fastrank.torch` (imported on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ._optional import require

require("torchmetrics", "fastrank.torch's torchmetrics adapters")  # how to install it, if missing
import torchmetrics  # noqa: E402

if TYPE_CHECKING:
    from .torch import BinaryMetric

__all__ = ["TorchMetric"]


class TorchMetric(torchmetrics.Metric):
    """The torchmetrics adapter of a fastrank metric object, for Lightning's ``self.log``.

    Parameters
    ----------
    metric : BinaryMetric, GroupedMetric, MultilabelMetric or MulticlassMetric
        The metric kept (its state is the exact or bounded state, not
        torchmetrics' list of tensors).
    **kwargs
        ``torchmetrics.Metric``'s keywords (``sync_on_compute``,
        ``process_group``, ...).

    Notes
    -----
    ``compute()`` gives :meth:`BinaryMetric.compute`'s tensor, gathered over
    the processes by fastrank (the compact state, once, in rank order);
    ``forward`` (``metric(preds, target)``) updates the epoch's state and
    returns the batch's own value. The state travels in checkpoints as the
    module's extra state (:meth:`BinaryMetric.state_dict`).

    Examples
    --------
    >>> import torch
    >>> from fastrank.torch import BinaryMetric
    >>> m = BinaryMetric("roc_auc").torchmetric()
    >>> m(torch.tensor([0.9, 0.2, 0.6, 0.7]), torch.tensor([1, 0, 1, 0]))  # this batch
    tensor(0.7500, dtype=torch.float64)
    >>> m.update(torch.tensor([0.1, 0.8]), torch.tensor([0, 1]))
    >>> m.compute()  # the epoch so far
    tensor(0.8889, dtype=torch.float64)
    """

    full_state_update = True
    is_differentiable = False
    higher_is_better = True

    def __init__(self, metric: BinaryMetric, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metric = metric
        metric.sync_on_compute = bool(self.sync_on_compute)
        metric.process_group = self.process_group

    def update(self, preds: Any, target: Any, groups: Any = None, weight: Any = None) -> None:
        """:meth:`BinaryMetric.update`."""
        self.metric.update(preds, target, groups, weight)

    def compute(self) -> torch.Tensor:
        """:meth:`BinaryMetric.compute` over every process's rows."""
        return self.metric.compute()

    def forward(self, preds: Any, target: Any, groups: Any = None,
                weight: Any = None) -> torch.Tensor:
        """Update with the batch; return the batch's own value (not synced)."""
        self.update(preds, target, groups, weight)
        batch = self.metric.empty_like()
        batch.sync_on_compute = False
        batch.update(preds, target, groups, weight)
        value = batch.compute()
        self._forward_cache = value  # type: ignore[assignment]  # declared None upstream
        return value

    def reset(self) -> None:
        """Forget every row."""
        super().reset()
        self.metric.reset()

    def get_extra_state(self) -> Any:
        return self.metric.state_dict()

    def set_extra_state(self, state: Any) -> None:
        self.metric.load_state_dict(state)
