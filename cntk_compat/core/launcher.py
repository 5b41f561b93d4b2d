"""What a process's launcher (torchrun, mpiexec) tells it through the environment: its rank and the number of
workers, known before any process group is started (CNTK 2.7 knows them from MPI as soon as it is loaded)."""
import os

# (rank, size, local rank) variables of the MPI launchers
MPI_VARIABLES = (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),   # Open MPI
                 ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"))                                   # MPICH, Intel MPI


def launched_workers():
    """(workers, rank) of this process as its launcher tells it; (1, 0) outside a distributed job."""
    pairs = (("RANK", "WORLD_SIZE"),) + tuple((rank, size) for rank, size, _ in MPI_VARIABLES)
    for rank, size in pairs:
        if rank in os.environ and size in os.environ:
            try:
                workers, r = int(os.environ[size]), int(os.environ[rank])
            except ValueError:
                continue
            if workers > 1 and 0 <= r < workers:
                return workers, r
            return 1, 0
    return 1, 0
