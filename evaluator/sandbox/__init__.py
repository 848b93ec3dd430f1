"""The sandbox: the fork server that runs every candidate and judge process (:mod:`.worker`), its
client and pool in the caller's process (:mod:`.pool`), and the walls each child gets: its box
(:mod:`.jail`, :mod:`.landlock`), its resource limits and clean-up (:mod:`.process`), and the time
limits of a test (:mod:`.limits`).

Nothing is imported here: ``python -m evaluator.sandbox.worker`` must not load its own module twice.
"""
