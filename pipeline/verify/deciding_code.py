"""The one invalidation rule of Verify's caches: a hash of the code that decides.

Both caches (a shard's result, :mod:`pipeline.verify.shards`; a problem's generated tests,
:mod:`pipeline.verify.testgen.generate`) key on it, so any edit to Verify, test generation, the
examples a statement prints or the evaluator decides again; no hand-bumped version to forget.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path


@functools.cache
def code_version() -> str:
    import evaluator
    import pipeline.process.public

    verify = Path(__file__).parent
    roots = [(verify, sorted(verify.rglob("*.py"))), (Path(evaluator.__file__).parent, sorted(Path(evaluator.__file__).parent.rglob("*.py"))),
             (verify.parent, [Path(pipeline.process.public.__file__)])]
    digest = hashlib.sha1()
    for root, files in roots:
        for path in files:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
