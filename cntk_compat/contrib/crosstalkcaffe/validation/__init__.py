"""Checking a converted network against the original toolkit's outputs."""
