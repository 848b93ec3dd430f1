"""Training: MicroCoder-GRPO on verl over the released dataset."""
