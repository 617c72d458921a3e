# NOT RUNNABLE THERE (2026-12-07): the TPU host's sandbox opens no TCP socket (socket.socket() raises EAFNOSUPPORT,
# bench/chip/sockets_v5e.txt), so Dask's scheduler exits at start; kept for a multi-core machine with networking.
# Issue 52's bench on the TPU machine's host (13 cores, nothing else running): the trees (kernel packages +
# site-packages) with the local executor (--jobs 1 and 2) and on local Dask clusters of 1 and 2 worker processes,
# side by side in one run (bench/executors.py --side-by-side): wall, and CPU (the driver's, with its local pool,
# and the Dask workers' own rusage). The issue's targets: Dask 1 worker <= 1.3x local --jobs 1; 2 workers >= 1.6x 1.
# Made ready here, run there through the `device` tool with carry [".whl-tpu", ".whl-dask", "scratch_tpu"]
# (no network there: Dask's wheels travel; .whl-tpu holds libcst and typer, as for unshared.sh):
#   echo /.whl-dask/ >> .git/info/exclude
#   python3 -m pip download --only-binary=:all: --python-version 3.11 --implementation cp \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 \
#     -d .whl-dask 'distributed==2026.8.0' 'importlib_metadata<9'     # 21 wheels, 5.2 MB
#   (fetched for another Python than 3.11, dask's importlib_metadata may be left out, or be 10.x, which needs
#   lazy_importer: the pin keeps the one dask imports on 3.11 whole)
#   tar -cJf scratch_tpu/trees.tar.xz -C /work/scratch trees        # kernel packages + site-packages, .py files
#   git archive --format=tar HEAD | xz -c > scratch_tpu/now.tar.xz
#   cp bench/chip/executors.sh scratch_tpu/ && bash scratch_tpu/executors.sh     # (on the machine)
# ROUNDS (default 2): each configuration once a round, the order turned round by round. TREES: a folder of the
# unpacked tar to run in instead of the whole trees (a dry run: TREES=kernel-packages/ejkernel-0.0.80.3 ROUNDS=1).
# WORK (default /tmp): where it installs and unpacks (a dry run on a shared machine: a folder of its own).
export PYENV_VERSION=system
W=${WORK:-/tmp}
wheels=$(ls .whl-tpu/*.whl) || exit
for wheel in .whl-dask/*.whl; do  # (a wheel both folders hold, once: two of one project stop the install)
  project=$(basename "$wheel" | cut -d- -f1)
  ls .whl-tpu/"$project"-*.whl >/dev/null 2>&1 || wheels="$wheels $wheel"
done
PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target $W/site $wheels || exit
mkdir -p $W/b $W/revs/now && tar -xJf scratch_tpu/trees.tar.xz -C $W/b && tar -xJf scratch_tpu/now.tar.xz -C $W/revs/now || exit
R=$W/revs/now
export PYTHONPATH=$R:$PYTHONPATH:$W/site  # (the Dask scheduler, workers and the tool's runs inherit it)
TREE=$W/b/trees/${TREES:-}
[ -f "$TREE/pyproject.toml" ] || printf '[tool.jax-codemod]\n' > "$TREE/pyproject.toml"  # (a subfolder's own project)
python3 -c 'import jax' 2>/dev/null || {  # (the JAX1xx rules need a target: the installed jax's, else this one)
  printf 'jax-version = "0.12.0.1"\n' >> "$TREE/pyproject.toml"; echo "no jax installed: the JAX1xx rules target 0.12.0.1"; }
nproc; python3 --version
python3 -c "import codemods, distributed; print(codemods.__file__, 'distributed', distributed.__version__)" || exit
mkdir -p $W/logs && export EXECUTORS_LOGS=$W/logs  # (Dask's scheduler and workers write there: read it if no row comes)
python3 $R/bench/executors.py --side-by-side "$TREE" --rounds "${ROUNDS:-2}"
