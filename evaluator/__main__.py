"""``python -m evaluator``: the ``microcoder-eval`` command line (:mod:`evaluator.cli`), for a
checkout or an environment without the console script."""

import sys

from evaluator.cli import main

sys.exit(main())
