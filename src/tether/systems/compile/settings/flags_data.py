"""Data for the `flags` setting: flagpy's 195 flag arrays and pycountry's fact cards.

flagpy ships each flag as a pickled numpy array. Pickle can run arbitrary code, so the
arrays are read with `SafeArrayUnpickler`, which resolves only the three names a numpy
array's pickle needs and refuses everything else; `pickle.load` is never called.
"""

from __future__ import annotations

import io
import pickle
from functools import cache
from pathlib import Path

import numpy as np

# flagpy's file stem -> pycountry lookup name, where "The " stripping is not enough.
ALIASES = {
    "Cape Verde": "Cabo Verde",
    "Georgia (Country)": "GE",
    "Central African Republic": "CF",
    "Democratic Republic Of The Congo": "CD",
    "Republic Of The Congo": "CG",
    "Czech Republic": "CZ",
    "Dominican Republic": "DO",
    "East Timor": "TL",
    "Ivory Coast": "CI",
    "Maldives": "MV",
    "Federated States Of Micronesia": "FM",
    "Turkey": "TR",
    "United Arab Emirates": "AE",
    "United Kingdom": "GB",
    "United States": "US",
    "Bahamas": "BS",
    "Brunei": "BN",
    "Russia": "RU",
    "Palestine": "PS",
    "Vatican City": "VA",
    "São Tomé And Príncipe": "ST",
}

_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
}


class SafeArrayUnpickler(pickle.Unpickler):
    """Resolves only numpy's array reconstruction names; any other global is refused."""

    def find_class(self, module: str, name: str):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"refused global {module}.{name} in a flag pickle")
        if module == "numpy.core.multiarray":  # numpy 2 moved it; the old path warns
            module = "numpy._core.multiarray" if hasattr(np, "_core") else module
        return super().find_class(module, name)


def load_array(data: bytes) -> np.ndarray:
    value = SafeArrayUnpickler(io.BytesIO(data)).load()
    if not isinstance(value, np.ndarray):
        raise pickle.UnpicklingError(f"flag pickle holds {type(value).__name__}, not an array")
    return value


@cache
def _flag_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("flagpy")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("flagpy", name="flagpy")
    return Path(spec.origin).parent / "flags"


def _country(stem: str):
    import pycountry

    name = stem.replace("_", " ")
    if name.startswith("The "):
        name = name[4:]
    return pycountry.countries.lookup(ALIASES.get(name, name))


@cache
def flags() -> tuple[tuple[str, np.ndarray], ...]:
    """(alpha_2, RGB uint8 array) for flagpy's 195 flags, sorted by code."""
    out = []
    for path in sorted(_flag_dir().glob("*.pkl")):
        arr = load_array(path.read_bytes())
        out.append((_country(path.stem).alpha_2, arr[..., :3].astype(np.uint8)))
    return tuple(sorted(out, key=lambda x: x[0]))


_FUND_WORDS = ("fund", "wir", "unidad", "next day", "mvdol", "unit", "dinero", "zimbabwe gold")


@cache
def currency_of(alpha_2: str) -> tuple[str, str] | None:
    """(name, code) when ISO 4217 has exactly one ordinary currency whose code starts
    with the country's alpha-2 code (USD, JPY, ...). Shared currencies (euro, CFA franc)
    are not derivable from pycountry's data, so such countries get no currency fact."""
    import pycountry

    found = [
        c
        for c in pycountry.currencies
        if c.alpha_3.startswith(alpha_2) and not any(w in c.name.lower() for w in _FUND_WORDS)
    ]
    return (found[0].name, found[0].alpha_3) if len(found) == 1 else None


@cache
def facts(alpha_2: str) -> dict[str, str]:
    import pycountry

    c = pycountry.countries.get(alpha_2=alpha_2)
    if c is None:
        raise KeyError(f"no country with alpha_2 {alpha_2!r}")
    out = {
        "name": c.name,
        "official_name": getattr(c, "official_name", c.name),
        "alpha_2": c.alpha_2,
        "alpha_3": c.alpha_3,
        "numeric": c.numeric,
    }
    money = currency_of(alpha_2)
    if money:
        out["currency"], out["currency_code"] = money
    subdivisions = pycountry.subdivisions.get(country_code=alpha_2) or []
    out["subdivisions"] = str(len(subdivisions))
    return out


def card(alpha_2: str) -> str:
    """The fact card a harness may show: the entity's facts, one per line."""
    f = facts(alpha_2)
    lines = [
        f"Name: {f['name']}",
        f"Official name: {f['official_name']}",
        f"ISO alpha-2: {f['alpha_2']}",
        f"ISO alpha-3: {f['alpha_3']}",
        f"ISO numeric: {f['numeric']}",
    ]
    if "currency" in f:
        lines.append(f"Currency: {f['currency']} ({f['currency_code']})")
    lines.append(f"Subdivisions listed in ISO 3166-2: {f['subdivisions']}")
    return "\n".join(lines)
