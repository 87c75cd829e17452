"""Parameter-efficient modules (adapters, LoRA, IAA, REM) and method settings."""
