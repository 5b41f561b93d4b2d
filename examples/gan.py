"""A deep convolutional GAN (DCGAN) for 28 x 28 digits: the generator upsamples noise with
ConvolutionTranspose2D and BatchNormalization, the discriminator is a strided ConvNet; two Trainers,
the discriminator shared between real and generated images by clone(share). Generated digits are
saved as a PNG grid.

    python examples/gan.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import BatchNormalization, Convolution2D, ConvolutionTranspose2D, Dense, default_options

import _synthetic
import plotting  # tutorials/plotting.py, on the path through _synthetic

NOISE_DIM = 32


def generator(z):
    with default_options(init=C.normal(0.02), pad=True):
        h = Dense((32, 7, 7), activation=None)(z)
        h = C.relu(BatchNormalization(map_rank=1)(h))
        h = ConvolutionTranspose2D((5, 5), 16, strides=2, output_shape=(14, 14), activation=None)(h)
        h = C.relu(BatchNormalization(map_rank=1)(h))
        return ConvolutionTranspose2D((5, 5), 1, strides=2, output_shape=(28, 28), activation=C.sigmoid)(h)


def discriminator(x):
    with default_options(init=C.normal(0.02), pad=True):
        h = Convolution2D((5, 5), 16, strides=2, activation=C.leaky_relu)(x)
        h = Convolution2D((5, 5), 32, strides=2, activation=C.leaky_relu)(h)
        return Dense(1, activation=C.sigmoid)(h)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "gan"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rng = np.random.RandomState(0)
    images, _ = _synthetic.make_digits(1000 if args.quick else 20000, seed=1)
    images = (images[:, None] / 255.0).astype(np.float32)

    z = C.input_variable(NOISE_DIM)
    x_real = C.input_variable((1, 28, 28))
    x_fake = generator(z)
    d_real = discriminator(x_real)
    d_fake = d_real.clone(method="share", substitutions={x_real: x_fake.output})
    d_loss = -(C.log(d_real) + C.log(1.0 - d_fake))
    g_loss = -C.log(d_fake)

    lr, momentum = C.learning_parameter_schedule(0.0002), C.momentum_schedule(0.5)
    freq = 0 if args.quick else 200
    d_trainer = C.Trainer(d_real, (d_loss, None), [C.adam(d_real.parameters, lr, momentum)],
                          [C.logging.ProgressPrinter(freq, tag="Discriminator")])
    g_trainer = C.Trainer(x_fake, (g_loss, None), [C.adam(x_fake.parameters, lr, momentum)],
                          [C.logging.ProgressPrinter(freq, tag="Generator")])
    batch = 32
    for step in range(30 if args.quick else 3000):
        noise = rng.uniform(-1, 1, (batch, NOISE_DIM)).astype(np.float32)
        d_trainer.train_minibatch({x_real: images[rng.randint(len(images), size=batch)], z: noise})
        g_trainer.train_minibatch({z: rng.uniform(-1, 1, (batch, NOISE_DIM)).astype(np.float32)})

    samples = x_fake.eval({z: rng.uniform(-1, 1, (32, NOISE_DIM)).astype(np.float32)})
    plotting.image_grid(os.path.join(args.out, "generated_digits.png"), samples[:, 0])


if __name__ == "__main__":
    main()
