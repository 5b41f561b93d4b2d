"""cntk.contrib.deeprl: reinforcement-learning agents on top of the CNTK API (CNTK 2.7's contrib package).

Everything lives in the ``agent`` subpackage: ``agent.agent_factory.make_agent`` builds an agent from a config
file; the agents are ``qlearning.QLearning`` (DQN and its double, dueling and prioritized-replay variants),
``policy_gradient.ActorCritic``, ``tabular_qlearning.TabularQLearning`` and ``random_agent.RandomAgent``; the
pieces they share (config readers, networks, replay memory, observation preprocessing) are in ``agent.shared``.
Environments are gym-style objects; spaces are recognized by their class path (``gym.spaces.box.Box``, ...), so
gym itself is never imported.
"""
