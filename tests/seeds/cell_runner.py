"""Runs a seed's code cells, in order, in one namespace, capturing what each prints."""


def cell_runner(capsys, *setup_cells):
    """(namespace, run) after running ``setup_cells``; ``run(cell)`` executes one more cell and returns its output."""
    namespace = {}

    def run(cell):
        capsys.readouterr()
        exec(cell, namespace)
        return capsys.readouterr().out

    for cell in setup_cells:
        run(cell)
    return namespace, run
