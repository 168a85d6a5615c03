/* Does MPI_Init hide an OpenCL platform? argv[1] = "mpi" calls MPI_Init first. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    int rank = -1;
    cl_platform_id p[8];
    cl_uint np = 0;
    if (argc > 1 && !strcmp(argv[1], "mpi")) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    cl_int rc = clGetPlatformIDs(8, p, &np);
    printf("rank %d: clGetPlatformIDs rc %d, %u platforms\n", rank, rc, np);
    for (cl_uint i = 0; i < np; i++) {
        char name[256] = "";
        cl_uint nd = 0;
        clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        rc = clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        printf("rank %d:   %s: clGetDeviceIDs rc %d, %u devices\n", rank, name, rc, nd);
    }
    if (rank >= 0)
        MPI_Finalize();
    return 0;
}
