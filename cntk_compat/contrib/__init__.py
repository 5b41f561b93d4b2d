"""cntk.contrib: extra utilities of CNTK's Python package. Of them cntk-compat has ``netopt`` (network
optimizations: factoring Dense layers, binarizing convolutions) and ``deeprl`` (reinforcement-learning agents:
DQN and its variants, actor-critic, tabular Q-learning) and ``crosstalkcaffe`` (converting Caffe models to CNTK
models); the ``crosstalk`` converter is not provided."""
