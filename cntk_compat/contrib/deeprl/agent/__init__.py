"""Agents that interact with a gym-style environment through start / step / end (see ``agent.AgentBaseClass``)."""
