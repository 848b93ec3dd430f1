"""MicroCoder's tests: a package, so ``tests.training.grpo_reference`` resolves here and not to a
``tests`` package that a dependency installs into site-packages."""
