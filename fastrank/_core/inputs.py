"""The one way in: every user array becomes a canonical array here, or an error.

Every public entry point hands its raw arguments to this module; what comes
out holds only arrays the kernels may read without bounds checks:

* scores as a native, aligned, contiguous array of one of four canonical
  dtypes (float32, float64, int64, uint64) and the caller's dtype (for
  thresholds), never transformed: narrow dtypes are widened exactly (bool,
  float16 and 8/16-bit integers to float32, 32-bit integers to float64),
  long doubles only when every value fits float64 exactly;
* labels as ``uint8`` 0/1 (a ``bool`` array whose bytes are not 0/1, as from
  C or DLPack, counts every nonzero byte as True, as numpy does), or as
  validated sparse columns, or as class codes;
* weights as finite, non-negative float64, scaled by an exact power of two
  (:func:`weight_units`; one per class where the classes are too far apart for
  one) so that no sum or product over- or underflows;
* group ids as dense integer codes with the ids they stand for.

Finiteness of scores is checked where the scores are first read: by the
engine's first pass over a task (its split kernel, or the ends of the sorted
scores), or here (:func:`check_finite`) for the callers that keep scores; the
message is always :func:`nonfinite_error`'s. Each error is worded once, here.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from typing import Any, NamedTuple

import numpy as np

from .._kernels.batch import LAB_CODES as LAB_CODES  # re-exported: the label layouts
from .._kernels.batch import LAB_CSC as LAB_CSC
from .._kernels.batch import LAB_SAME as LAB_SAME
from .._kernels.keys import KIND_FLOAT, KIND_SIGNED, KIND_UNSIGNED
from .._kernels.sweep import UNIT_FREE as UNIT_FREE  # re-exported for summaries
from .._kernels.sweep import class_shifts
from .ids import plain as plain  # re-exported: scalars in messages

_DLPACK_CPU = 1

# ------------------------------------------------------------------ score dtypes


class Spec(NamedTuple):
    """How the kernels read a canonical score dtype."""

    bits: np.dtype[Any]  # the unsigned dtype of its bits
    kind: int
    sign: np.uint64
    ones: np.uint64
    exp: np.uint64  # exponent mask of floats (0 for integers)


_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
SPECS: dict[np.dtype[Any], Spec] = {
    np.dtype(np.float32): Spec(_U32, KIND_FLOAT, np.uint64(1 << 31), np.uint64(0xFFFFFFFF),
                               np.uint64(0x7F800000)),
    np.dtype(np.float64): Spec(_U64, KIND_FLOAT, np.uint64(1 << 63), np.uint64((1 << 64) - 1),
                               np.uint64(0x7FF0000000000000)),
    np.dtype(np.int64): Spec(_U64, KIND_SIGNED, np.uint64(1 << 63), np.uint64((1 << 64) - 1),
                             np.uint64(0)),
    np.dtype(np.uint64): Spec(_U64, KIND_UNSIGNED, np.uint64(1 << 63),
                              np.uint64((1 << 64) - 1), np.uint64(0)),
}
# dtypes widened exactly to a canonical one
_WIDEN: dict[str, np.dtype[Any]] = {
    "?": np.dtype(np.float32),
    "e": np.dtype(np.float32),
    "b": np.dtype(np.float32),
    "B": np.dtype(np.float32),
    "h": np.dtype(np.float32),
    "H": np.dtype(np.float32),
    "i": np.dtype(np.float64),
    "I": np.dtype(np.float64),
    "l": np.dtype(np.int64),
    "q": np.dtype(np.int64),
    "L": np.dtype(np.uint64),
    "Q": np.dtype(np.uint64),
}




# ------------------------------------------------------------------ arrays


def as_array(x: Any, name: str) -> np.ndarray:
    """Anything array-like as a numpy array, without copying when possible.

    Accepts numpy arrays, lists, pandas objects and anything with ``__array__``,
    and DLPack producers on the CPU (a torch tensor, detached if it requires
    grad) without importing their libraries. bfloat16 values (a tensor, or
    ml_dtypes' numpy dtype) and float8 tensors come as float32, which holds each
    exactly.
    """
    if isinstance(x, np.ndarray):
        if type(x) is np.ndarray:
            return bfloat16_as_float32(x) if is_bfloat16(x) else x
        masked = sys.modules.get("numpy.ma")  # (not imported: no masked array exists)
        if masked is not None and isinstance(x, masked.MaskedArray):
            raise TypeError(
                f"{name} is a numpy masked array, whose mask would be ignored: keep the "
                f"unmasked rows of every argument (e.g. {name}.data[~{name}.mask] and the "
                f"same rows of the others), or pass np.ma.filled({name}, value)"
            )
        return np.asarray(x)  # a subclass (np.matrix, np.memmap) as the plain array it holds
    if is_sparse(x):  # np.asarray would make a 0-d object array of it
        raise TypeError(f"{name} is a scipy.sparse matrix, which this function does not take; "
                        f"pass a dense array ({name}.toarray())")
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        device = x.__dlpack_device__()
        if int(device[0]) != _DLPACK_CPU:
            raise TypeError(
                f"{name} lives on a non-CPU device (DLPack device {tuple(device)}); "
                "move it to the CPU first, e.g. tensor.cpu()"
            )
        if getattr(x, "requires_grad", False) and hasattr(x, "detach"):
            x = x.detach()
        if callable(getattr(x, "is_neg", None)) and x.is_neg():
            x = x.resolve_neg()  # torch's lazy negation, which DLPack would drop
        kind = str(getattr(x, "dtype", ""))
        if (kind == "torch.bfloat16" or kind.startswith("torch.float8")) and \
                callable(getattr(x, "float", None)):
            x = x.float()  # (numpy has neither; float32 holds each value exactly)
        try:
            return np.from_dlpack(x)
        except (TypeError, RuntimeError, BufferError) as exc:
            if not hasattr(x, "__array__"):
                raise TypeError(f"{name} could not be read through DLPack: {exc}") from exc
    is_iterator = hasattr(x, "__next__") and not hasattr(x, "__len__")
    if isinstance(x, (str, bytes)) or x is None or is_iterator:
        raise TypeError(
            f"{name} must be array-like (a list, array or tensor), got {type(x).__name__}"
        )
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} could not be converted to an array: {exc}") from exc


def is_bfloat16(s: np.ndarray) -> bool:
    return s.dtype.name == "bfloat16" and s.dtype.itemsize == 2


def bfloat16_as_float32(s: np.ndarray) -> np.ndarray:
    """bfloat16 values (ml_dtypes) as float32, exactly (their bits are float32's top half)."""
    bits = np.ascontiguousarray(s).view(np.uint16).astype(np.uint32) << np.uint32(16)
    return bits.view(np.float32)


def is_sparse(y: Any) -> bool:
    """Whether ``y`` is a scipy.sparse matrix or array (without importing scipy)."""
    return hasattr(y, "tocsc") and hasattr(y, "nnz") and hasattr(y, "shape")


def native(a: np.ndarray) -> np.ndarray:
    """Native byte order, aligned and C-contiguous (copies only when needed)."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not (a.flags.c_contiguous and a.flags.aligned):
        a = np.array(a, order="C", copy=True)
    return a


def readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view (kernels take their inputs read-only)."""
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


# ------------------------------------------------------------------ scores


def _object_scores(s: np.ndarray, name: str) -> np.ndarray:
    """Scores numpy holds as objects (a pandas object column, a list mixing numpy
    scalars with Python numbers) as the numeric array they are exactly: bools;
    integers as int64 or uint64; floats (or floats and integers that float64 holds
    exactly) as float64, or their own float dtype. Anything else is a TypeError
    saying why; nothing is rounded."""
    values = s.reshape(-1).tolist()
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        raise TypeError(f"{name} is an object array with missing values (None or NaN); "
                        "it must hold real numbers")
    if not all(isinstance(v, (bool, np.bool_, numbers.Integral, float, np.floating))
               for v in values):
        kinds = sorted({type(v).__name__ for v in values})
        raise TypeError(f"{name} must hold real numbers (float, int or bool); it holds "
                        f"{', '.join(kinds)} objects")
    if not values:
        return np.zeros(s.shape, np.float64)
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return np.array(values, dtype=np.bool_).reshape(s.shape)
    whole = [v for v in values if isinstance(v, numbers.Integral)]  # bools count as 0/1
    if len(whole) == len(values):
        for dtype in (np.int64, np.uint64):
            try:
                return np.array([int(v) for v in values], dtype=dtype).reshape(s.shape)
            except OverflowError:
                continue
        raise TypeError(f"{name} holds integers too large for 64 bits (beyond -2**63 .. "
                        "2**64 - 1); rescale them or convert them to float")
    inexact = next((v for v in whole if float(v) != v), None)  # (an exact comparison)
    if inexact is not None:
        raise TypeError(f"{name} mixes floats with integers that float64 does not hold "
                        f"exactly (such as {int(inexact)}); convert them yourself")
    out = np.array(values)
    if out.dtype.kind != "f":  # (numpy's own choice: a float dtype for real numbers)
        out = np.array(values, dtype=np.float64)
    return out.reshape(s.shape)


def canonical_scores(s: np.ndarray, name: str = "y_score") -> np.ndarray:
    """Scores of any shape in a canonical dtype, native and contiguous (C or F).

    Widening is exact; long doubles must hold float64 values exactly.
    """
    dtype = s.dtype
    if dtype.kind not in "biuf":
        if dtype.kind == "O":
            return canonical_scores(_object_scores(s, name), name)
        if dtype.kind == "S":
            raise TypeError(f"{name} holds bytes; scores must be real numbers")
        raise TypeError(f"{name} must hold real numbers (float, int or bool); got dtype {dtype}")
    if not dtype.isnative or not s.flags.aligned:
        s = s.astype(dtype.newbyteorder("="))
    if s.dtype not in SPECS:
        target = _WIDEN.get(s.dtype.char)
        if target is None:  # long double and other wide floats
            wide = s.astype(np.float64)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # inf on overflow: unequal
                exact = np.array_equal(wide, s, equal_nan=True)
            if not exact:
                raise TypeError(
                    f"{name} has dtype {dtype}, whose values do not all fit float64 exactly; "
                    "convert them to float64 yourself"
                )
            s = wide
        else:
            s = s.astype(target)
    if not (s.flags.c_contiguous or s.flags.f_contiguous):
        s = np.ascontiguousarray(s)
    return s


def scores_1d(y_score: Any, name: str = "y_score") -> tuple[np.ndarray, np.dtype[Any]]:
    """One task's scores: canonical values and the caller's dtype."""
    s = as_array(y_score, name)
    if s.ndim != 1:
        if s.ndim == 2:
            raise ValueError(
                f"{name} must be 1-D (one task); got shape {s.shape}. Pass one score vector "
                "per call, or use the batched form (2-D scores with 2-D labels)."
            )
        raise ValueError(f"{name} must be 1-D (one task); got {s.ndim}-D input with shape "
                         f"{s.shape}")
    if s.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one sample is needed")
    if s.dtype.kind == "O":  # numbers held as objects: the caller's dtype is what they are
        s = _object_scores(s, name)
    dtype = s.dtype
    if dtype in SPECS and s.flags.c_contiguous and s.flags.aligned:
        return s, dtype  # canonical already (SPECS holds native dtypes only)
    return native(canonical_scores(s, name)), dtype


def score_matrix(s: np.ndarray) -> tuple[np.ndarray, bool, np.dtype[Any]]:
    """2-D scores ``(n_samples, n_tasks)``: canonical values in C or F order, whether
    C-ordered (F otherwise; a single column counts as F), and the caller's dtype."""
    if s.ndim != 2:
        raise ValueError(
            f"y_score must be 1-D (one task) or 2-D (n_samples, n_tasks); got {s.ndim}-D "
            f"input with shape {s.shape}"
        )
    n, t = s.shape
    if n == 0:
        raise ValueError(f"y_score has no samples (shape {s.shape}); at least one is needed")
    if s.dtype.kind == "O":  # as in scores_1d
        s = _object_scores(s, "y_score")
    dtype = s.dtype
    v = canonical_scores(s)
    c_order = v.flags.c_contiguous and t > 1
    return v, bool(c_order), dtype


def check_finite(values: np.ndarray, shape: tuple[int, ...] | None = None) -> None:
    """Raise :func:`nonfinite_error` if any float score is NaN or infinite."""
    if values.dtype.kind == "f" and values.size:
        flat = values.reshape(-1, order="A")
        with np.errstate(invalid="ignore"):
            ok = bool(np.isfinite(flat.min()) and np.isfinite(flat.max()))
        if not ok:
            i = int(np.flatnonzero(~np.isfinite(flat))[0])
            raise nonfinite_error(flat[i], i, shape or values.shape,
                                  values.flags.f_contiguous and not values.flags.c_contiguous)


def nonfinite_error(value: Any, index: int, shape: tuple[int, ...],
                    task_major: bool = False) -> ValueError:
    """The one message for a NaN or infinite score at flat ``index`` of ``shape``."""
    if len(shape) == 1:
        where = f"index {index}"
    else:
        n, t = shape
        row, task = divmod(index, n)[::-1] if task_major else divmod(index, t)
        where = f"row {row}, task {task}"
    return ValueError(f"y_score contains a non-finite value ({plain(value)!r} at {where}); "
                      "scores must be finite")


# ------------------------------------------------------------------ labels


def _one_d_labels(y: np.ndarray, n: int) -> None:
    if y.ndim != 1:
        if y.ndim == 2:
            raise ValueError(
                f"y_true has shape {y.shape} but y_score is 1-D: one task needs 1-D labels. "
                "2-D labels go with 2-D scores of the same shape (n_samples, n_tasks)."
            )
        raise ValueError(f"y_true must be 1-D (one label per sample); got {y.ndim}-D input "
                         f"with shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"y_true and y_score have different lengths: {y.shape[0]} and {n}")


def _equal(y: np.ndarray, value: Any) -> np.ndarray:
    """``y == value`` elementwise as a bool array, for any label dtype.

    Incomparable types (text labels against a number) match nothing; values
    that cannot be compared at all (pandas' NA) are a clear error.
    """
    try:
        with warnings.catch_warnings():  # numpy < 2 warns, then returns a scalar
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            eq = np.asarray(y == value, dtype=bool)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"y_true holds values that cannot be compared with {plain(value)!r} ({exc}); "
            "are there missing values (None, NA)?"
        ) from exc
    if eq.shape != y.shape:
        return np.zeros(y.shape, dtype=bool)
    return eq


def _distinct(y: np.ndarray, limit: int = 10) -> list[Any]:
    try:
        values = np.unique(y)
    except TypeError:  # unorderable objects
        values = np.array(list(dict.fromkeys(y.tolist())), dtype=object)
    out: list[Any] = [plain(v) for v in values[:limit]]
    if values.shape[0] > limit:
        out.append("...")
    return out


def _bad_labels(y: np.ndarray) -> ValueError:
    if y.dtype.kind == "f" and np.isnan(y).any():
        i = int(np.flatnonzero(np.isnan(y))[0])
        return ValueError(
            f"y_true must hold two classes; it contains a missing value (NaN at index {i})"
        )
    found = _distinct(y)
    if len(found) > 2:
        return ValueError(f"y_true must hold two classes; it holds {found}")
    return ValueError(
        f"y_true holds {found}; without pos_label the labels must be "
        "{0, 1}, {-1, 1} or bool. Pass pos_label to say which value is positive."
    )


def _no_bytes(y: np.ndarray, pos_label: Any) -> None:
    if y.dtype.kind == "S" or isinstance(pos_label, bytes):
        raise TypeError("y_true holds bytes (or pos_label is bytes); labels must be numbers, "
                        "bools or str: decode them first, e.g. y_true.astype(str)")
    if y.dtype.kind == "O" and y.size and any(isinstance(v, bytes) for v in y.reshape(-1)[:1000]):
        raise TypeError("y_true holds bytes; labels must be numbers, bools or str: decode "
                        "them first")


_max = np.maximum.reduce  # the ufunc itself: a.max()'s Python steps are a tenth of a small call
_BOOL = np.dtype(np.bool_)
_U8 = np.dtype(np.uint8)
BYTES_CHECK = 1024  # bool labels up to this many are checked and counted as bytes
_ZERO_ONE = b"\x00\x01"


def _bool_bytes(raw: np.ndarray) -> int:
    """The number of 1 bytes of small ``uint8`` labels, or -1 when a byte is neither
    0 nor 1: two passes of ``bytes`` methods, which cost less than numpy's two
    reductions up to about :data:`BYTES_CHECK` bytes (0.3 against 1.3 us at 100,
    1.2 against 1.5 at 1,000, 2.2 against 1.6 at 2,000 on an AMD Zen 4)."""
    b = raw.tobytes()
    return -1 if b.translate(None, _ZERO_ONE) else b.count(1)


_UNITS: dict[np.dtype[Any], np.ndarray] = {}


def _one_of(dtype: np.dtype[Any]) -> np.ndarray:
    """1 as a 0-d array of a numeric ``dtype`` (kept per dtype): ``np.equal`` with
    it is ``y == 1`` without numpy's steps for a Python scalar (1.0 against
    2.2 us at 100 int64 labels on an AMD Zen 4)."""
    got = _UNITS.get(dtype)
    if got is None:
        got = np.ones((), dtype)
        if len(_UNITS) < 64:
            _UNITS[dtype] = got
    return got


def binary_labels(y: np.ndarray, pos_label: Any) -> tuple[np.ndarray, int]:
    """Labels of any shape as ``uint8`` 0/1 (1 = positive), same shape, and the count."""
    if pos_label is None and y.dtype == _BOOL:
        raw = (y if y.flags.c_contiguous else np.ascontiguousarray(y)).view(_U8)
        count = _bool_bytes(raw) if raw.size <= BYTES_CHECK else -2
        if count == -1 or (count == -2 and raw.size and _max(raw) > 1):
            raw = (raw != 0).view(_U8)  # bytes other than 0/1 (a 0/255 mask): every
            count = -2  # nonzero byte is True, as in numpy
        raw.flags.writeable = False  # a fresh view or array: the caller's stays as it is
        return raw, count if count >= 0 else int(np.count_nonzero(raw))
    _no_bytes(y, pos_label)
    if pos_label is None:
        if y.dtype.kind in "iuf":  # numbers compare without warnings or errors
            one = np.equal(y, _one_of(y.dtype))
            n_one = int(np.count_nonzero(one))
            size = y.size
            if n_one != size:  # the zeros are what count_nonzero leaves (-0.0 too, not NaN):
                n_zero = size - int(np.count_nonzero(y))  # one pass fewer than y == 0
                if n_one + n_zero != size and (
                        n_zero or y.dtype.kind == "u"
                        or n_one + int(np.count_nonzero(y == -1)) != size):
                    raise _bad_labels(y.reshape(-1))
            lab = one.view(_U8)
            lab.flags.writeable = False  # read-only, as the kernels take them
            return lab, n_one
        if y.dtype.kind == "O":
            one = _equal(y, 1)
            n_one = int(np.count_nonzero(one))
            n_zero = int(np.count_nonzero(_equal(y, 0)))
            n_minus = int(np.count_nonzero(_equal(y, -1)))
            size = y.size
            if n_one + n_zero != size and (n_zero or n_one + n_minus != size):
                raise _bad_labels(y.reshape(-1))
            return one.view(np.uint8), n_one
        raise _bad_labels(y.reshape(-1))  # strings and the like are never {0, 1}
    pos = _equal(y, pos_label)
    flat = y.reshape(-1)
    rest = flat[~pos.reshape(-1)]
    if rest.shape[0] and not bool(np.all(_equal(rest, rest[0]))):
        found = _distinct(flat)
        raise ValueError(
            f"y_true must hold two classes; it holds {found}"
            + ("" if pos_label in found else
               f", and pos_label={plain(pos_label)!r} is not one of them")
        )
    return pos.view(np.uint8), int(np.count_nonzero(pos))


def labels_1d(y_true: Any, n: int, pos_label: Any) -> tuple[np.ndarray, int]:
    """One task's labels: ``uint8`` 0/1 and the positive count."""
    if type(y_true) is np.ndarray and y_true.ndim == 1 and y_true.shape[0] == n:
        return binary_labels(y_true, pos_label)  # the common case, without the steps below
    if is_sparse(y_true):
        raise ValueError(
            f"y_true is a sparse matrix of shape {tuple(y_true.shape)} but y_score is 1-D "
            f"with {n} samples; sparse labels go with 2-D scores (n_samples, n_tasks)"
        )
    y = as_array(y_true, "y_true")
    _one_d_labels(y, n)
    return binary_labels(y, pos_label)


def _indicator_pos_label(y: np.ndarray, pos_label: Any) -> None:
    """Multilabel 0/1 indicators have their positive class fixed, as in scikit-learn."""
    if pos_label is None or _is_one(pos_label):
        return
    if y.dtype == np.bool_ or (y.dtype.kind in "iuf" and y.size and
                               bool(np.all((y == 0) | (y == 1)))):
        raise ValueError(
            f"pos_label={plain(pos_label)!r} with a 0/1 label matrix: the positive class of "
            "multilabel indicators is 1 (pass pos_label=None or 1)"
        )


def _is_one(v: Any) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, bool) and bool(v == 1)  # type: ignore[comparison-overlap]


def label_matrix(y_true: Any, shape: tuple[int, int], pos_label: Any,
                 c_order: bool) -> np.ndarray:
    """A dense ``(n, t)`` label matrix as 0/1 ``uint8``, flat in the scores' memory
    order (row-major when ``c_order``, column after column otherwise)."""
    y = as_array(y_true, "y_true")
    if y.shape != shape:
        raise ValueError(f"y_true and y_score have different shapes: {y.shape} and {shape}")
    _indicator_pos_label(y, pos_label)
    if c_order:
        flat = np.ascontiguousarray(y).reshape(-1)
    else:
        flat = np.asfortranarray(y).reshape(-1, order="F")
    labels, _ = binary_labels(flat, pos_label)
    return labels


def _malformed_sparse(what: str, name: str = "y_true") -> ValueError:
    return ValueError(f"the sparse {name} is malformed: {what} (its index arrays are broken; "
                      "rebuild it, e.g. with scipy.sparse.csr_array((data, indices, indptr)) "
                      "from valid arrays)")


def _compressed(y: Any, shape: tuple[int, int], name: str
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int], int]:
    """A csr, csc or bsr matrix's pointers, indices (int64) and data, checked against
    its shape; and its block shape and number of major rows (columns for csc)."""
    fmt = y.format
    ptr = np.asarray(y.indptr)
    idx = np.asarray(y.indices)
    data = np.asarray(y.data)
    block = tuple(y.blocksize) if fmt == "bsr" else (1, 1)
    major, minor = (shape[1], shape[0]) if fmt == "csc" else (shape[0], shape[1])
    step_major, step_minor = (block[0], block[1])
    if (ptr.ndim != 1 or idx.ndim != 1 or ptr.dtype.kind not in "iu"
            or idx.dtype.kind not in "iu"):
        raise _malformed_sparse("indptr and indices must be 1-D integer arrays", name)
    nmajor = major // step_major
    if ptr.shape[0] != nmajor + 1:
        raise _malformed_sparse(f"indptr has {ptr.shape[0]} entries, {nmajor + 1} expected",
                                name)
    ptr = ptr.astype(np.int64)
    if ptr[0] != 0 or (np.diff(ptr) < 0).any():
        raise _malformed_sparse("indptr must start at 0 and never decrease", name)
    nnz = int(ptr[-1])
    if nnz > idx.shape[0] or nnz > data.shape[0]:
        raise _malformed_sparse(f"indptr points past the data ({nnz} entries, "
                                f"{min(idx.shape[0], data.shape[0])} stored)", name)
    idx = idx[:nnz].astype(np.int64)
    if nnz and (idx.min() < 0 or idx.max() >= minor // step_minor):
        k = int(np.flatnonzero((idx < 0) | (idx >= minor // step_minor))[0])
        raise ValueError(
            f"the sparse {name} has an entry outside its shape {shape}: "
            f"{'row' if fmt == 'csc' else 'column'} index {int(idx[k])} "
            "(its index arrays are malformed)"
        )
    return ptr, idx, data[:nnz], (int(block[0]), int(block[1])), nmajor


def _sparse_entries(y: Any, shape: tuple[int, int], name: str = "y_true"
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, columns and values of the stored entries of a scipy.sparse matrix.

    Compressed formats (csr, csc, bsr) are read from their own index arrays after
    checking them, because scipy's converters trust them (a pointer past the
    data makes them read out of bounds); other formats go through ``tocoo``.
    """
    fmt = getattr(y, "format", None)
    if fmt in ("csr", "csc", "bsr"):
        ptr, idx, data, block, nmajor = _compressed(y, shape, name)
        major_of = np.repeat(np.arange(nmajor, dtype=np.int64), np.diff(ptr))
        if fmt == "bsr":  # expand each R x C block into its entries
            r, c = block
            br = (major_of[:, None, None] * r + np.arange(r)[None, :, None])
            bc = (idx[:, None, None] * c + np.arange(c)[None, None, :])
            rows = np.broadcast_to(br, data.shape).reshape(-1)
            cols = np.broadcast_to(bc, data.shape).reshape(-1)
            return rows, cols, data.reshape(-1)
        if fmt == "csc":
            return idx, major_of, data
        return major_of, idx, data
    if fmt == "coo":
        coords = getattr(y, "coords", None)
        row, col = (coords if coords is not None else (y.row, y.col))
        row, col, data = np.asarray(row), np.asarray(col), np.asarray(y.data)
        if not (row.ndim == col.ndim == data.ndim == 1
                and row.shape[0] == col.shape[0] == data.shape[0]):
            raise _malformed_sparse("row, col and data must be 1-D and of one length", name)
        return row.astype(np.int64), col.astype(np.int64), data
    coo = y.tocoo()
    return (np.asarray(coo.row, dtype=np.int64), np.asarray(coo.col, dtype=np.int64),
            np.asarray(coo.data))


def sparse_labels(y: Any, shape: tuple[int, int], pos_label: Any) -> tuple[np.ndarray, np.ndarray]:
    """Column pointers and positive row indices of a sparse 0/1 label matrix, checked:
    indices in range (scipy accepts any), duplicates summed, values 0/1."""
    if tuple(y.shape) != shape:
        raise ValueError(
            f"y_true and y_score have different shapes: {tuple(y.shape)} and {shape}"
        )
    if pos_label is not None and not _is_one(pos_label):
        raise ValueError("a sparse y_true holds 0/1 labels; pos_label must be None or 1")
    n, t = shape
    rows, cols, data = _sparse_entries(y, shape)
    if data.dtype.kind not in "biuf":
        raise TypeError(f"a sparse y_true must hold numbers; got dtype {data.dtype}")
    bad = (rows < 0) | (rows >= n) | (cols < 0) | (cols >= t)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"the sparse y_true has an entry outside its shape {shape}: row {int(rows[k])}, "
            f"column {int(cols[k])} (its index arrays are malformed)"
        )
    # sum duplicates, then keep the ones
    order = np.lexsort((rows, cols))
    rows, cols, data = rows[order], cols[order], data[order].astype(np.float64)
    if rows.shape[0]:
        first = np.concatenate(([True], (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])))
        starts = np.flatnonzero(first)
        data = np.add.reduceat(data, starts)
        rows, cols = rows[starts], cols[starts]
    ok = (data == 0) | (data == 1)
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"a sparse y_true must hold 0/1 labels; found {plain(data[k])!r}")
    keep = data == 1
    rows, cols = rows[keep], cols[keep]
    ptr = np.zeros(t + 1, np.int64)
    np.cumsum(np.bincount(cols, minlength=t), out=ptr[1:])
    return ptr, np.ascontiguousarray(rows)


def _entries_in_shape(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int],
                      name: str) -> None:
    bad = (rows < 0) | (rows >= shape[0]) | (cols < 0) | (cols >= shape[1])
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"the sparse {name} has an entry outside its shape {shape}: row "
                         f"{int(rows[k])}, column {int(cols[k])} (its index arrays are "
                         "malformed)")


def sparse_in_shape(y: Any, shape: tuple[int, int], name: str = "y_true"
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows, columns and values of a sparse matrix of ``shape`` (that of
    y_score), checked: the shapes agree and every entry lies inside (scipy trusts
    its index arrays). Called before a matrix is transposed, so that the message
    names rows and columns as the caller gave them."""
    if tuple(y.shape) != shape:
        raise ValueError(f"{name} and y_score have different shapes: {tuple(y.shape)} and "
                         f"{shape}")
    rows, cols, data = _sparse_entries(y, shape, name)
    _entries_in_shape(rows, cols, shape, name)
    return rows, cols, data


def sparse_dense(y: Any, shape: tuple[int, int], name: str = "y_true") -> np.ndarray:
    """A sparse matrix of ``shape`` as a dense float64 array, checked by
    :func:`sparse_in_shape` first (scipy's ``toarray`` writes wherever its index
    arrays point); duplicate entries add up, as scipy defines them."""
    rows, cols, data = sparse_in_shape(y, shape, name)
    data = np.asarray(data)
    if data.dtype.kind not in "biuf":
        raise TypeError(f"a sparse {name} must hold numbers; got dtype {data.dtype}")
    out = np.zeros(shape, np.float64)
    np.add.at(out, (rows, cols), data.astype(np.float64))
    return out


def _check_cells(shape: tuple[int, int]) -> None:
    """Cells are indexed as ``row * n_columns + column`` in int64."""
    if shape[0] * shape[1] >= 1 << 62:
        raise ValueError(f"a sparse matrix of shape {shape} has more cells than fastrank "
                         "indexes (2**62)")


def _by_cell(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> np.ndarray | None:
    """The order that sorts entries by (row, column), or None when they already are."""
    _check_cells(shape)
    cell = rows * np.int64(shape[1]) + cols
    if cell.shape[0] < 2 or bool((cell[1:] > cell[:-1]).all()):
        return None
    return np.argsort(cell, kind="stable")


def sparse_scores(y: Any, name: str = "y_score"
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """The stored entries of a sparse score matrix (each sample's top predictions),
    row by row: row pointers, columns (increasing within a row) and canonical, finite
    values, and the shape. Checked: 2-D, entries inside the shape, numbers, no cell
    stored twice (scipy would add the two scores, which is never what a prediction
    means). A csr matrix with sorted indices is read as it is."""
    shape = tuple(int(d) for d in y.shape)
    if len(shape) != 2:
        raise ValueError(f"a sparse {name} must be 2-D (n_samples, n_labels); got shape {shape}")
    if 0 in shape:
        raise ValueError(f"{name} has no {'samples' if shape[0] == 0 else 'labels'} (shape "
                         f"{shape}); at least one is needed")
    n_t = (shape[0], shape[1])
    ptr = None
    if getattr(y, "format", None) == "csr":
        ptr, cols, data, _, _ = _compressed(y, n_t, name)
        starts = np.zeros(cols.shape[0], bool)
        starts[ptr[:-1][ptr[:-1] < cols.shape[0]]] = True
        if cols.shape[0] > 1 and not ((cols[1:] > cols[:-1]) | starts[1:]).all():
            ptr = None  # unsorted, or a cell twice: by cell below
    if ptr is None:
        rows, cols, data = _sparse_entries(y, n_t, name)
        _entries_in_shape(rows, cols, n_t, name)
        order = _by_cell(rows, cols, n_t)
        if order is not None:
            rows, cols, data = rows[order], cols[order], np.asarray(data)[order]
            same = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
            if same.any():
                k = int(np.flatnonzero(same)[0])
                raise ValueError(f"the sparse {name} stores row {int(rows[k])}, column "
                                 f"{int(cols[k])} twice; give each prediction once (e.g. "
                                 "matrix.sum_duplicates() if the scores add up)")
        ptr = np.zeros(n_t[0] + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n_t[0]), out=ptr[1:])
    _check_cells(n_t)
    data = canonical_scores(np.asarray(data), name)
    check_finite(data, (data.shape[0],))
    return ptr, cols, np.ascontiguousarray(data), n_t


def grades(y: Any, name: str = "y_true") -> np.ndarray:
    """Relevance grades (0/1, bool, or graded numbers) as float64, checked finite and
    non-negative; a positive grade is relevant."""
    if y.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold relevance numbers (0/1 or grades); got dtype "
                        f"{y.dtype}")
    g = y.astype(np.float64)
    if g.size and not np.isfinite(g).all():
        raise ValueError(f"{name} holds NaN or infinite relevance; relevance must be finite")
    if g.size and g.min() < 0:
        raise ValueError(f"{name} holds a negative relevance ({g.min():g}); grades must be 0 "
                         "(not relevant) or above")
    return np.asarray(g, np.float64)


def sparse_grades(y: Any, shape: tuple[int, int], name: str = "y_true"
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The relevant cells of a relevance matrix (dense or sparse) of ``shape``: rows,
    columns and grades (positive), sorted by (row, column). A sparse matrix's
    duplicate entries add up, as scipy defines them."""
    if is_sparse(y):
        if tuple(y.shape) != shape:
            raise ValueError(f"{name} and y_score have different shapes: {tuple(y.shape)} and "
                             f"{shape}")
        rows, cols, data = _sparse_entries(y, shape, name)
        _entries_in_shape(rows, cols, shape, name)
        data = np.asarray(data)
        if data.dtype.kind not in "biuf":
            raise TypeError(f"a sparse {name} must hold numbers; got dtype {data.dtype}")
        order = _by_cell(rows, cols, shape)
        g = data.astype(np.float64)
        if order is not None:
            rows, cols, g = rows[order], cols[order], g[order]
            first = np.concatenate(([True], (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])))
            starts = np.flatnonzero(first)
            g = np.add.reduceat(g, starts) if starts.size else g
            rows, cols = rows[starts], cols[starts]
        g = grades(g, name)
    else:
        d = as_array(y, name)
        if d.shape != shape:
            raise ValueError(f"{name} and y_score have different shapes: {d.shape} and {shape}")
        full = grades(d, name)
        rows, cols = np.nonzero(full)
        g = full[rows, cols]
    keep = g > 0
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64), g[keep]


def class_codes(y_true: Any, n: int, t: int, labels: Any,
                pos_label: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Multiclass: each sample's class code (its score column) and the classes."""
    y = as_array(y_true, "y_true")
    if y.ndim != 1:
        raise ValueError(f"y_true must be 1-D class labels or a 2-D label matrix; got shape "
                         f"{y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"y_true has {y.shape[0]} samples but y_score has {n}")
    if t == 0:
        raise ValueError(f"y_score has no columns (shape ({n}, 0)); with 1-D class labels it "
                         "needs one column of scores per class")
    _no_bytes(y, pos_label)
    if pos_label is not None and not _is_one(pos_label):
        raise ValueError(
            f"pos_label={plain(pos_label)!r} with 1-D class labels and 2-D scores: each class "
            "is positive in turn (one against the rest), so pos_label must be None"
        )
    if y.dtype.kind == "f" and np.isnan(y).any():
        i = int(np.flatnonzero(np.isnan(y))[0])
        raise ValueError(f"y_true contains a missing value (NaN at index {i})")
    try:
        found = np.unique(y)
    except TypeError as exc:
        raise ValueError(f"y_true holds labels that cannot be ordered: {exc}") from exc
    if t == 2 and labels is None:
        raise ValueError(
            "y_score has 2 columns and y_true is 1-D: for a binary task pass the scores of "
            "the positive class, e.g. y_score[:, 1] of predict_proba (to score each of two "
            "classes against the other, pass labels=[class_of_column_0, class_of_column_1])"
        )
    if labels is None:
        if found.shape[0] != t:
            raise ValueError(
                f"y_true holds {found.shape[0]} classes but y_score has {t} columns; "
                "pass labels= to name the class of each column"
            )
        classes = found
    else:
        classes = np.asarray(labels)
        if classes.ndim != 1 or classes.shape[0] != t:
            raise ValueError(
                f"labels must list one class per score column ({t}); got shape {classes.shape}"
            )
        ranked = np.unique(classes)
        if ranked.shape[0] != t:
            raise ValueError(f"labels must not repeat a class; got {[plain(c) for c in classes]}")
        if not np.array_equal(ranked, classes):
            raise ValueError(
                "labels must be sorted, as in scikit-learn: column k of y_score is the k-th "
                f"smallest class (predict_proba's order); got {[plain(c) for c in classes]}. "
                "Sort the labels and reorder the columns with them: "
                "i = np.argsort(labels); labels = labels[i]; y_score = y_score[:, i]"
            )
    order = np.argsort(classes, kind="stable")
    ranked = classes[order]
    at = np.clip(np.searchsorted(ranked, y), 0, t - 1)
    missing = ranked[at] != y
    if missing.any():
        value = y[np.flatnonzero(missing)[0]]
        raise ValueError(f"y_true holds {plain(value)!r}, which is not one of labels "
                         f"{[plain(c) for c in classes]}")
    return order[at].astype(np.int64), classes


# ------------------------------------------------------------------ weights


def weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Sample weights as native float64: 1-D, length ``n``, finite, non-negative."""
    if sample_weight is None:
        return None
    w = as_array(sample_weight, "sample_weight")
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D (one weight per sample); got shape "
                         f"{w.shape}")
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has length {w.shape[0]} but y_score has length {n}")
    if w.dtype.kind == "O":  # numbers held as objects (a pandas object column), as scores
        w = _object_scores(w, "sample_weight")
    if w.dtype.kind not in "biuf":
        raise TypeError(f"sample_weight must hold real numbers; got dtype {w.dtype}")
    if w.dtype.kind == "f" and w.dtype.itemsize > 8:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            w64 = w.astype(np.float64)
    else:
        w64 = w.astype(np.float64, copy=False)
    w64 = native(w64)
    if n == 0:
        return w64
    lo = w64.min()
    hi = w64.max()
    if not (lo >= 0.0 and hi < math.inf):
        if np.isnan(lo) or np.isnan(hi):
            i = int(np.flatnonzero(np.isnan(w64))[0])
            raise ValueError(f"sample_weight contains NaN (at index {i})")
        if lo < 0.0:
            i = int(np.argmin(w64))
            raise ValueError(f"sample_weight must be non-negative; found {plain(w64[i])!r} at "
                             f"index {i}")
        i = int(np.flatnonzero(np.isinf(w64))[0])
        raise ValueError(f"sample_weight must be finite; found {plain(w64[i])!r} at index {i}")
    return w64


_TOTAL_CHECK = 1e300  # a class whose largest weight times its count exceeds this is summed


def weight_units(pos_max: float, neg_max: float, n: int) -> tuple[float, int]:
    """``(unit, shift)``: a task's positive weights are divided by ``unit``, its
    negative weights by ``unit * 2**shift``, before any sum (exact: powers of two).
    ``shift`` is 0 but for classes whose scales are too far apart for one unit
    (:func:`fastrank._kernels.sweep.class_shifts`, which kernels run per task too)."""
    e, shift = class_shifts(pos_max, neg_max, n)
    return math.ldexp(1.0, e), shift


def scaled_weights(w: np.ndarray | None, labels: np.ndarray, npos: int
                   ) -> tuple[np.ndarray | None, float, tuple[float, float], int]:
    """A task's weights divided by its units (:func:`weight_units`), the positives'
    unit, the bounds of its class totals after them (each class's largest weight
    times its count), which fix the units of the exact fixed-point totals, one per
    class, so that a light class next to a heavy one keeps all its bits, and the
    negatives' shift."""
    if w is None:
        return None, 1.0, _NO_BOUNDS, 0
    n = labels.shape[0]
    pmax, nmax = class_maxima(w, labels)
    _check_class_sums(w, labels, pmax * npos, nmax * (n - npos))
    unit, shift = weight_units(pmax, nmax, n)
    nunit = math.ldexp(unit, shift)
    scaled = in_units(w, labels, unit, shift)
    return scaled, unit, (pmax / unit * npos, nmax / nunit * (n - npos)), shift


def lost_weight_error(lost: float, where: str = "") -> ValueError:
    """The error for a weight its units lose (:func:`lost_weights`), where a value that
    reads it is asked for: the curves' tables, and the metrics of precision."""
    return ValueError(
        f"{where}sample_weight holds {lost!r}, more than float64's range below the largest "
        "weights of its class it is summed with: it would count as 0 in the totals, where "
        "precision adds it to the other class's; rescale the weights or drop the small ones")


LOST_RANGE = 2.0**184  # weights this far below their class's largest may be lost (at least)
PRECISION_REACH = 2.0**-80  # lost negatives below this share of the least positive weight
# move precision by at most n * 2**-80 of itself (below 1e-12 up to 10**12 rows)


def weight_losses(w: np.ndarray | None, scaled: np.ndarray | None, labels: np.ndarray
                  ) -> tuple[float, float]:
    """:func:`lost_weights`, and of the negatives lost the largest that precision would
    read: not below :data:`PRECISION_REACH` of the least positive weight kept
    (precision adds the negatives' totals to the positives'; a lost positive moves
    recall, and so each precision term, by at most 2**-184 of its class's total),
    else 0.0."""
    lost = lost_weights(w, scaled)
    if not lost or w is None or scaled is None:
        return lost, 0.0
    gone = (scaled == 0.0) & (w > 0.0)
    neg_gone = w[gone & (labels == 0)]
    pos = w[(labels == 1) & (scaled > 0.0)]
    if not neg_gone.shape[0] or not pos.shape[0]:
        return lost, 0.0
    top = float(neg_gone.max())
    return lost, top if top >= float(pos.min()) * PRECISION_REACH else 0.0


def lost_weights(w: np.ndarray | None, scaled: np.ndarray | None) -> float:
    """The first of a task's weights that its units put below float64's range (so
    that it counts as 0 there), or 0.0 where none is: weights at least 2**184 below
    their class's largest (a unit sits at most 2**890 above it), too little of any
    total to move its class's rates (AUC); but precision adds it to the other class's
    totals, where it may be all there is (an AP of 1.0 for 0.583), so task tables and
    the metrics of precision refuse it (:func:`lost_weight_error`)."""
    if w is None or scaled is None or scaled is w:
        return 0.0
    if np.count_nonzero(scaled) == np.count_nonzero(w):
        return 0.0
    return float(w[np.flatnonzero((scaled == 0.0) & (w > 0.0))[0]])


def in_units(w: np.ndarray, labels: np.ndarray, unit: float, shift: int) -> np.ndarray:
    """Weights divided by their class's unit (:func:`weight_units`; exact)."""
    if shift:
        return w / np.where(labels.astype(bool, copy=False), unit, math.ldexp(unit, shift))
    return w / unit if unit != 1.0 else w


def _check_class_sums(w: np.ndarray, labels: np.ndarray, pos_bound: float,
                      neg_bound: float) -> None:
    """Refuse weights whose positive or negative total is beyond float64 (each class's
    total is reported; the two classes' totals are never added)."""
    for cls, bound in ((1, pos_bound), (0, neg_bound)):
        if bound > _TOTAL_CHECK:
            with np.errstate(over="ignore"):
                total = float(w[labels == cls].sum())
            if not math.isfinite(total):
                raise ValueError(
                    f"sample_weight sums to more than float64 can hold (about 1.8e308) over "
                    f"the {'positive' if cls else 'negative'} samples; rescale the weights")


def class_maxima(w: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """The largest positive and negative weight (labels 0/1, any shape matching ``w``)."""
    pos = labels.astype(bool, copy=False)
    pmax = float(w[pos].max()) if pos.any() else 0.0
    neg = ~pos
    nmax = float(w[neg].max()) if neg.any() else 0.0
    return pmax, nmax


# ------------------------------------------------------------------ groups


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and v != v:
        return True
    name = type(v).__name__
    return name in ("NAType", "NaTType")


def group_codes(groups: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Group ids as dense codes ``0 .. G`` (in increasing id order) and the ``G`` ids."""
    g = as_array(groups, "groups")
    if g.ndim != 1:
        raise ValueError(f"groups must be 1-D (one id per sample); got shape {g.shape}")
    if g.shape[0] != n:
        raise ValueError(f"groups has length {g.shape[0]} but y_score has length {n}")
    if g.dtype.kind == "f":
        if not np.isfinite(g).all():
            i = int(np.flatnonzero(~np.isfinite(g))[0])
            raise ValueError(f"groups contains a missing or non-finite id "
                             f"({plain(g[i])!r} at index {i})")
    elif g.dtype.kind == "O":
        missing = np.fromiter((_is_missing(v) for v in g), dtype=bool, count=n)
        if missing.any():
            i = int(np.flatnonzero(missing)[0])
            raise ValueError(f"groups contains a missing id ({g[i]!r} at index {i}); every "
                             "sample needs a group")
    elif g.dtype.kind not in "biuUS":
        raise TypeError(f"groups must hold numbers or strings; got dtype {g.dtype}")
    if g.dtype.kind in "iu" and n:
        g = native(g)
        lo = g.min()
        span = int(g.max()) - int(lo) + 1
        if span <= max(n, 1 << 16):  # dense integer ids: count them, no sort
            # copy=False: a second fresh 8-byte array per sample costs its page faults
            # (2 of G1's 25 ms, 1e6 rows, AMD Zen 5)
            at = (g - lo).astype(np.int64, copy=False)
            present = np.zeros(span, bool)
            present[at] = True
            codes = (np.cumsum(present) - 1)[at]
            return (codes.astype(np.int64, copy=False),
                    np.flatnonzero(present).astype(g.dtype) + lo)
    try:
        ids, codes = np.unique(g, return_inverse=True)
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in g.tolist()})
        raise ValueError(f"groups holds ids of different kinds ({', '.join(kinds)}) that "
                         "cannot be ordered; use ids of one kind") from exc
    return codes.reshape(-1).astype(np.int64), ids


# ------------------------------------------------------------------ options


AVERAGES = (None, "macro", "weighted", "size", "pairs", "micro", "samples")


def check_average(average: Any, allowed: tuple[Any, ...] = AVERAGES) -> None:
    if average not in allowed:
        raise ValueError(
            f"average must be one of {', '.join(map(repr, allowed))}; got {average!r}"
        )


# ------------------------------------------------------------------ canonical tasks


class Task(NamedTuple):
    """One task in canonical form."""

    values: np.ndarray  # canonical scores, 1-D, native, C-contiguous
    dtype: np.dtype[Any]  # the caller's score dtype
    labels: np.ndarray  # uint8 0/1
    npos: int
    weights: np.ndarray | None  # float64 >= 0, divided by ``unit``
    unit: float  # positive weight totals in the caller's units = kernel totals * unit
    checked: bool  # scores already known to be finite
    bounds: tuple[float, float] = (0.0, 0.0)  # see scaled_weights (after the unit)
    shift: int = 0  # the negatives' unit is unit * 2**shift (see scaled_weights)
    lost: float = 0.0  # a weight its units put below float64's range (lost_weights)
    lost_precision: float = 0.0  # one of those that precision would read (weight_losses)

    @property
    def neg_unit(self) -> float:
        """Negative weight totals in the caller's units = kernel totals * this."""
        return math.ldexp(self.unit, self.shift)

    def in_caller_units(self, pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positive and negative totals (kernel units) in the caller's (exact: powers
        of two); the same arrays when the units are 1."""
        if self.unit == 1.0 and self.shift == 0:
            return pos, neg
        return pos * self.unit, neg * self.neg_unit

    @property
    def spec(self) -> Spec:
        return SPECS[self.values.dtype]


def task(y_true: Any, y_score: Any, sample_weight: Any = None, pos_label: Any = None,
         *, check: bool = False) -> Task:
    """One task from the caller's arguments. With ``check``, scores are checked
    for NaN/inf here (otherwise the engine's first pass checks them)."""
    values, dtype = scores_1d(y_score)
    n = values.shape[0]
    labels, npos = labels_1d(y_true, n, pos_label)
    losses = (0.0, 0.0)
    if sample_weight is None:
        w, unit, bounds, shift = None, 1.0, _NO_BOUNDS, 0
    else:
        given = weights(sample_weight, n)
        w, unit, bounds, shift = scaled_weights(given, labels, npos)
        losses = weight_losses(given, w, labels)
    if check:
        check_finite(values)
    return Task(values, dtype, labels, npos, w, unit, check, bounds, shift, *losses)


_NO_BOUNDS = (0.0, 0.0)  # an unweighted task's (see scaled_weights)


def task_of(values: np.ndarray, dtype: np.dtype[Any], labels: np.ndarray,
            w: np.ndarray | None) -> Task:
    """A task from arrays already canonical (finite scores, 0/1 labels, checked weights)."""
    npos = int(np.count_nonzero(labels))
    scaled, unit, bounds, shift = scaled_weights(w, labels, npos)
    return Task(values, dtype, labels, npos, scaled, unit, True, bounds, shift,
                *weight_losses(w, scaled, labels))


SAMPLE_MAJOR = 0  # a C-ordered (n, t) matrix: task j is column j
SEGMENTS = 1  # task j is values[offsets[j]:offsets[j + 1]]


class Batch(NamedTuple):
    """Many tasks in canonical form: where each task's scores, labels and weights are."""

    values: np.ndarray  # canonical scores, flat in memory order
    dtype: np.dtype[Any]
    layout: int  # SAMPLE_MAJOR or SEGMENTS
    n: int  # samples per task (matrices) or in all (groups)
    t: int  # number of tasks
    offsets: np.ndarray  # SEGMENTS: t + 1 offsets
    lab_mode: int  # LAB_SAME, LAB_CSC or LAB_CODES
    labels: np.ndarray  # LAB_SAME: uint8 0/1 parallel to values
    lab_ptr: np.ndarray  # LAB_CSC: column pointers
    lab_idx: np.ndarray  # LAB_CSC: positive rows; LAB_CODES: class codes
    weights: np.ndarray | None  # as given: each task is scaled by its own unit
    wshared: bool  # one weight per sample shared by every task (matrices)
    sizes: np.ndarray  # samples per task
    ids: np.ndarray | None  # group ids or classes
    mode: str  # "tasks", "classes" or "groups"
    order: np.ndarray | None = None  # groups: the input index of each value


_NO_INT = np.empty(0, np.int64)
_NO_F64 = readonly(np.empty(0, np.float64))
_NO_U8 = np.empty(0, np.uint8)


def batch(y_true: Any, s: np.ndarray, sample_weight: Any, pos_label: Any, groups: Any,
          labels: Any) -> Batch:
    """A batched call's arguments (2-D scores, or ``groups``), validated whole."""
    if groups is not None:
        if s.ndim != 1:
            raise ValueError(f"groups= splits one 1-D score vector into tasks; y_score has "
                             f"shape {s.shape}")
        values, dtype = scores_1d(s)
        n = values.shape[0]
        lab, _ = labels_1d(y_true, n, pos_label)
        w = weights(sample_weight, n)
        codes, ids = group_codes(groups, n)
        from .batch_tasks import group_segments  # the engine's threads order the samples

        order, offsets, values, lab, w = group_segments(codes, ids.shape[0], values, lab, w)
        return Batch(values, dtype, SEGMENTS, n, ids.shape[0], offsets, LAB_SAME, lab,
                     _NO_INT, _NO_INT, w, False, np.diff(offsets), ids, "groups", order)
    values, c_order, dtype = score_matrix(s)
    n, t = s.shape
    w = weights(sample_weight, n)
    lab, ptr, idx = _NO_U8, _NO_INT, _NO_INT
    classes: np.ndarray | None = None
    if is_sparse(y_true):
        lab_mode, mode = LAB_CSC, "tasks"
        ptr, idx = sparse_labels(y_true, (n, t), pos_label)
    else:
        y = as_array(y_true, "y_true")
        if y.ndim == 1:
            lab_mode, mode = LAB_CODES, "classes"
            idx, classes = class_codes(y, n, t, labels, pos_label)
        elif y.ndim == 2:
            lab_mode, mode = LAB_SAME, "tasks"
            lab = label_matrix(y, (n, t), pos_label, c_order)
        else:
            raise ValueError(f"y_true must be 1-D class labels or a 2-D label matrix; got "
                             f"{y.ndim}-D input with shape {y.shape}")
    flat = values.reshape(-1) if c_order else values.reshape(-1, order="F")
    layout = SAMPLE_MAJOR if c_order else SEGMENTS
    offsets = _NO_INT if c_order else np.arange(t + 1, dtype=np.int64) * n
    return Batch(flat, dtype, layout, n, t, offsets, lab_mode, lab, ptr, idx, w, True,
                 np.full(t, n, np.int64), classes, mode, None)
