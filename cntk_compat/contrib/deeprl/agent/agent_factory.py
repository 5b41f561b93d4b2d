"""Building the agent that a config file asks for."""
import configparser

from .policy_gradient import ActorCritic
from .qlearning import QLearning
from .random_agent import RandomAgent
from .tabular_qlearning import TabularQLearning


def make_agent(agent_config, o_space, a_space):
    """The agent named by ``Agent`` in section ``[General]`` of the config file ``agent_config`` (case does not
    matter): 'qlearning' (QLearning), 'actor_critic' (ActorCritic), 'tabular_qlearning' (TabularQLearning) or
    'random' (RandomAgent, also when the key is absent); None for any other name. The agent reads its own
    settings from the same file."""
    config = configparser.ConfigParser()
    config.read(agent_config)
    agent_type = config.get('General', 'Agent', fallback='random').lower()
    if agent_type == 'random':
        return RandomAgent(o_space, a_space)
    learners = {'qlearning': QLearning, 'actor_critic': ActorCritic, 'tabular_qlearning': TabularQLearning}
    if agent_type not in learners:
        return None
    return learners[agent_type](agent_config, o_space, a_space)
