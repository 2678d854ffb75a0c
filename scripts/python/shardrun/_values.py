"""Turns NumPy and torch values into what shardrun reads: plain JSON values, or NumPy arrays of the declared dtype.

Neither library is imported here unless the value comes from it, so the helper works without them.
"""
import json
import os

_STORED_DTYPES = ("float32", "float64", "int32", "int64", "bool")


def declared_dtypes():
    """{"field": "float32", ...} from $SHARDRUN_RESULT_FIELDS (set by shardrun); {} when absent."""
    text = os.environ.get("SHARDRUN_RESULT_FIELDS")
    return json.loads(text) if text else {}


def _is_torch(value):
    return type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach")


def _from_torch(value):
    value = value.detach().cpu()
    if value.dim() == 0:
        return value.item()
    try:
        import numpy  # noqa: F401  (torch's .numpy() needs it)
    except ImportError:
        return value.tolist()
    if str(value.dtype) in ("torch.bfloat16", "torch.float16"):
        value = value.float()  # NumPy has no bfloat16; float32 holds both exactly
    return value.numpy()


def _is_numpy(value):
    return type(value).__module__.split(".")[0] == "numpy" and hasattr(value, "dtype")


def plain(value):
    """A value with torch tensors and NumPy scalars made plain; NumPy arrays (ndim >= 1) are kept as they are."""
    if _is_torch(value):
        value = _from_torch(value)
    if _is_numpy(value):
        return value.item() if value.ndim == 0 else value
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    return value


def plain_json(value):
    """A value made JSON-ready all the way down (arrays inside lists become lists)."""
    value = plain(value)
    if _is_numpy(value):
        return value.tolist()
    return value


def as_stored_array(name, array, declared):
    """`array` as the little-endian, C-ordered dtype the field is declared with; a lossy kind change is an error."""
    import numpy as np

    target = declared.get(name)
    if target is None:
        if array.dtype.name not in _STORED_DTYPES:
            raise ValueError(f"result field '{name}': dtype {array.dtype.name} cannot be stored; use one of "
                             f"{', '.join(_STORED_DTYPES)}")
        target = array.dtype.name
    target = np.dtype(target).newbyteorder("<")
    if not np.can_cast(array.dtype, target, casting="same_kind"):
        raise ValueError(f"result field '{name}': a {array.dtype.name} array cannot be stored as the declared "
                         f"{target.name} without losing values; convert it yourself (e.g. .round().astype(...))")
    return np.ascontiguousarray(array, dtype=target)


def check_declared(names, declared):
    """Every name must be a declared field when shardrun said which are (a typo is caught here, by name)."""
    if not declared:
        return
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise ValueError(f"result field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                         f"not declared in exec.results (declared: {', '.join(declared) or 'none'})")
