"""Building blocks shared by the agents: config readers, networks, losses, replay memory and preprocessing."""
