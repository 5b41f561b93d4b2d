"""Tutorial 7: a generative adversarial network (GAN).

Two networks play a game. The generator turns random noise into samples; the discriminator tries to tell
its samples from real ones. Each trains against the other, and the generator ends up drawing samples that
look like the data. Our "data" is a ring of eight Gaussian blobs in the plane: easy to plot, and hard
enough that a careless generator collapses onto one blob.

New here: two Trainers over one graph, sharing the discriminator between real and generated inputs with
Function.clone(CloneMethod.share, substitutions), losses written with ops (log), each learner given only
its own network's parameters, and a ProgressPrinter per player.

Run it:   python tutorials/07_gan.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Dense, default_options
from cntk.logging import ProgressPrinter

import plotting

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "07_gan"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)
np.random.seed(0)

# --- 1. Real data and noise --------------------------------------------------------------------------------
centres = np.array([(np.cos(a), np.sin(a)) for a in np.arange(8) * np.pi / 4], np.float32) * 2


def real_samples(count):
    return (centres[np.random.randint(8, size=count)] + 0.05 * np.random.randn(count, 2)).astype(np.float32)


noise_dim = 8


def noise(count):
    return np.random.uniform(-1, 1, size=(count, noise_dim)).astype(np.float32)


# --- 2. The two networks -----------------------------------------------------------------------------------
hidden = 64 if args.quick else 128


def generator(z):
    with default_options(init=C.xavier()):
        h = Dense(hidden, activation=C.relu)(z)
        h = Dense(hidden, activation=C.relu)(h)
        return Dense(2, activation=None)(h)


def discriminator(x):
    with default_options(init=C.xavier()):
        h = Dense(hidden, activation=C.relu)(x)
        h = Dense(hidden, activation=C.relu)(h)
        return Dense(1, activation=C.sigmoid)(h)   # the probability that x is real


z = C.input_variable(noise_dim, name="noise")
x_real = C.input_variable(2, name="real")

x_fake = generator(z)
d_real = discriminator(x_real)
# The same discriminator (same Parameters: CloneMethod.share) applied to the generator's output.
d_fake = d_real.clone(method=C.CloneMethod.share, substitutions={x_real: x_fake.output})

# The discriminator wants d_real -> 1 and d_fake -> 0; the generator wants d_fake -> 1. The generator's
# loss is -log(d_fake) (the "non-saturating" form: strong gradients while the discriminator still wins).
d_loss = -(C.log(d_real) + C.log(1.0 - d_fake))
g_loss = -C.log(d_fake)

# --- 3. Two trainers ---------------------------------------------------------------------------------------
# Each learner gets only its own player's parameters, so a step of one never moves the other.
lr = C.learning_parameter_schedule(0.0005)
momentum = C.momentum_schedule(0.5)
d_learner = C.adam(d_real.parameters, lr=lr, momentum=momentum)
g_learner = C.adam(x_fake.parameters, lr=lr, momentum=momentum)
num_steps = 300 if args.quick else 5000
frequency = 0 if args.quick else 1000
d_trainer = C.Trainer(d_real, (d_loss, None), [d_learner], [ProgressPrinter(frequency, tag="Discriminator")])
g_trainer = C.Trainer(x_fake, (g_loss, None), [g_learner], [ProgressPrinter(frequency, tag="Generator")])

minibatch_size = 64
d_history, g_history = [], []
for step in range(num_steps):
    d_trainer.train_minibatch({x_real: real_samples(minibatch_size), z: noise(minibatch_size)})
    g_trainer.train_minibatch({z: noise(minibatch_size)})
    d_history.append(d_trainer.previous_minibatch_loss_average)
    g_history.append(g_trainer.previous_minibatch_loss_average)

# --- 4. What did the generator learn? ----------------------------------------------------------------------
fake = x_fake.eval({z: noise(1000)})
nearest = np.argmin(((fake[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
close = np.sqrt(((fake - centres[nearest]) ** 2).sum(-1)) < 0.5
print("generated points near a blob: %.0f%%; blobs covered: %d of 8"
      % (100 * close.mean(), len(set(nearest[close].tolist()))))
print("discriminator on real / generated: %.2f / %.2f"
      % (d_real.eval({x_real: real_samples(500)}).mean(), d_fake.eval({z: noise(500)}).mean()))

steps = np.arange(num_steps)
plotting.line_chart(os.path.join(args.out, "losses.png"),
                    {"discriminator": (steps, d_history), "generator": (steps, g_history)},
                    title="GAN losses", x_label="step", y_label="loss")
plotting.scatter_chart(os.path.join(args.out, "samples.png"),
                       {"real": real_samples(500), "generated": fake[:500]},
                       title="Real and generated samples", x_label="x1", y_label="x2")
