"""The ``assert`` test kinds: a block of asserts on what the entry point returns, and LeetCode's
``ListNode``/``TreeNode`` asserts (``linked``). Their kinds (:mod:`.kind`), the asserts read as calls
and written back (:mod:`.calls`) and the node shim (:mod:`.linked`); they generate and validate as
the call kind does."""
