"""-o yaml: the explanation document as block-style YAML, keys in the document's order."""
from __future__ import annotations

from typing import Any

import yaml

try:
    from yaml import CSafeDumper as _BaseDumper
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeDumper as _BaseDumper  # type: ignore[assignment]


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    pass


_Dumper.add_representer(tuple, _Dumper.represent_list)


def dumps(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=1_000_000)
