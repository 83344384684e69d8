"""The global random generator behind rand/randn/randint and their seeds."""
import numpy as np


class Generator:
    """torch.Generator on NumPy's PCG64: same seeding API, different random stream."""

    def __init__(self, device="cpu"):
        self._seed = 67280421310721  # torch's default seed
        self.numpy = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        self._seed = int(seed)
        self.numpy = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        return self.manual_seed(np.random.SeedSequence().entropy % 2**63).initial_seed()

    def get_state(self):
        return self.numpy.bit_generator.state

    def set_state(self, state):
        self.numpy.bit_generator.state = state
        return self


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def numpy_generator(generator=None):
    return (generator or default_generator).numpy
