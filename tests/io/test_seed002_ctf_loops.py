"""Seed 002 (CNTK "Manual minibatch loop and Training Session"): its CTF reader cells run unchanged.

Each cell's code (verbatim, in tests/seeds/seed002_cells.py) is executed in one namespace per test, in a
fresh working folder (the first cell writes the CTF file ``input`` itself).
"""
import os

import numpy as np
import pytest

import cntk
from tests.conftest import isolated_automatic_random_seeds
from tests.seeds.seed002_cells import (CELL_CHECKPOINTED_LOOP, CELL_DISTRIBUTED_LOOP, CELL_MANUAL_LOOP,
                                       CELL_TRAINING_SESSION, without_distribution)

XOR = {(0, 0): 0, (1, 0): 1, (0, 1): 1, (1, 1): 0}


def run_cells(namespace, *cells):
    for cell in cells:
        exec(compile(cell, '<seed 002 cell>', 'exec'), namespace)
    return namespace


@pytest.fixture(scope='module')
def after_manual_loop(tmp_path_factory):
    """The namespace and folder after the first cell (training the model takes a while: done once)."""
    folder = tmp_path_factory.mktemp('seed002')
    with pytest.MonkeyPatch.context() as mp, isolated_automatic_random_seeds():
        mp.chdir(folder)
        cntk.cntk_py.set_fixed_random_seed(3)
        np.random.seed(3)
        namespace = run_cells({}, CELL_MANUAL_LOOP)
    return folder, namespace


@pytest.fixture
def ns(after_manual_loop, monkeypatch):
    folder, namespace = after_manual_loop
    monkeypatch.chdir(folder)
    return dict(namespace)


def test_manual_loop_trains_and_tests_on_the_ctf_reader(ns):
    assert ns['trainer'].total_number_of_samples_seen == 800
    # the test source reads 100 samples in order: 25 passes over the 4 XOR rows
    assert ns['total_samples'] == 100
    assert 0 <= ns['error'] / ns['total_samples'] < 1
    # the reader hands the rows of the file over unchanged
    source = ns['MinibatchSource'](ns['CTFDeserializer']('input', ns['streams']), randomize=False)
    mb = source.next_minibatch(4)
    rows = mb[source['xy']].asarray().reshape(4, 2)
    labels = mb[source['r']].asarray().reshape(4)
    assert {tuple(int(v) for v in row): int(r) for row, r in zip(rows, labels)} == XOR


def test_checkpointed_loop_restores_trainer_and_reader_position(ns, capsys):
    run_cells(ns, CELL_CHECKPOINTED_LOOP)
    assert 'No restore file found' in capsys.readouterr().out
    assert ns['trainer'].total_number_of_samples_seen == 800
    saved_position = ns['mb_source_state']
    assert saved_position == ns['mb_source'].get_checkpoint_state()
    expected_next = ns['mb_source'].next_minibatch(6)

    run_cells(ns, CELL_CHECKPOINTED_LOOP)    # the same cell, run again
    printed = capsys.readouterr().out
    assert 'Trying to restore from checkpoint' in printed and 'Restore has finished successfully' in printed
    assert ns['trainer'].total_number_of_samples_seen == 800
    assert ns['mb_source'].get_checkpoint_state() == saved_position
    restored_next = ns['mb_source'].next_minibatch(6)
    for name in ('xy', 'r'):
        np.testing.assert_array_equal(restored_next[ns['mb_source'][name]].asarray(),
                                      expected_next[ns['mb_source'][name]].asarray())


def test_distributed_loop(ns):
    run_cells(ns, 'import os', 'checkpoint_frequency = 100', CELL_DISTRIBUTED_LOOP)
    assert ns['trainer'].total_number_of_samples_seen >= 800


def test_training_session_on_the_ctf_reader(ns):
    run_cells(ns, 'checkpoint_frequency = 100', CELL_TRAINING_SESSION)
    assert ns['trainer'].total_number_of_samples_seen == 800
    assert os.path.exists('training_session')
    # the checkpoint holds a distributed learner's state: the test without distribution must not restore it
    for name in ('training_session', 'training_session.ckp'):
        os.remove(name)


def test_training_session_on_the_ctf_reader_without_distribution(ns):
    """The training-session cell with the plain learner in place of the distributed wrapper."""
    run_cells(ns, 'checkpoint_frequency = 100', without_distribution(CELL_TRAINING_SESSION))
    assert ns['trainer'].total_number_of_samples_seen == 800
    assert os.path.exists('training_session')
    # the checkpoint carries the reader position (under the session's key for its training source)
    source = ns['MinibatchSource'](ns['CTFDeserializer']('input', ns['streams']))
    state = ns['trainer'].restore_from_checkpoint('training_session')
    source.restore_from_checkpoint(state['TrainingMinibatchSource'])
    assert source.get_checkpoint_state() == ns['mb_source'].get_checkpoint_state()
    assert source.get_checkpoint_state()['samples_seen'] == 800
