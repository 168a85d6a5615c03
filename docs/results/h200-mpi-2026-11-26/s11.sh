#!/usr/bin/env bash
# Why rank 0 saw no NVIDIA platform under mpirun (s10): OpenCL platforms with and without MPI_Init.
set -u
R=$PWD; cd /tmp/w || exit 1
H=$PWD/build-gpu/hetune
F=(--oversubscribe --bind-to none); [ "$(id -u)" = 0 ] && F+=(--allow-run-as-root)
{
mpicc -O2 -I$R/.gpu/include $R/.gpu/clmpi.c -o /tmp/clmpi -lOpenCL 2>&1 | tail -5
echo "== no mpirun, no MPI_Init"; /tmp/clmpi
echo "== no mpirun, MPI_Init"; /tmp/clmpi mpi
echo "== mpirun -n 2, no MPI_Init"; mpirun "${F[@]}" -n 2 /tmp/clmpi
echo "== mpirun -n 2, MPI_Init"; mpirun "${F[@]}" -n 2 /tmp/clmpi mpi
echo "== same, OMPI_MCA_opal_cuda_support=0"; OMPI_MCA_opal_cuda_support=0 mpirun "${F[@]}" -n 2 /tmp/clmpi mpi
echo "== same, OMPI_MCA_pml=ob1 btl=self,vader"; OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader mpirun "${F[@]}" -n 2 /tmp/clmpi mpi
echo "== hetune devices, plain"; $H devices 2>&1 | grep -E "^[0-9]"; echo "== mpirun -n 2 hetune tune (devices)"; mpirun "${F[@]}" -n 2 $H tune bench/mpi/split-spec.json --db /tmp/x.db --budget 1 2>&1 | grep -E "model|rank"
echo "== env of a rank"; mpirun "${F[@]}" -n 1 env | grep -iE "cuda|ocl|opencl|visible|LD_" | head
ompi_info 2>/dev/null | grep -iE "cuda|btl" | head
} > $OUT/s11.log 2>&1
cat $OUT/s11.log
