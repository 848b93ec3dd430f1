"""Names shared between the config renderer, the trainer and the agent-loop workers (no verl
imports here, so any module may import it while verl itself is still initialising)."""

TEMPERATURE_KEY = "__temperature__"
# The one policy-loss family of all three presets (verl's ``vanilla`` adds a dual clip the paper
# does not use): the presets differ only by KL loss, clip and mask (training.grpo.presets).
LOSS_MODE = "microcoder"
TD_RECORD = "temperature.json"  # the run's T(D) record (probe curve, rule, reason, switches), in its output folder
