# Time the tool on the TPU machine's host (13 cores, nothing else running; a gVisor sandbox), two revisions
# side by side in one run. Made ready here, run there through the `device` tool with carry [".whl-tpu", "scratch_tpu"]:
#   tar -cJf scratch_tpu/trees.tar.xz -C /work/scratch trees        # kernel packages + site-packages, .py files
#   git archive --format=tar BASE | xz -c > scratch_tpu/base.tar.xz
#   git archive --format=tar HEAD | xz -c > scratch_tpu/now.tar.xz
#   cp bench/chip/unshared.sh scratch_tpu/ && bash scratch_tpu/unshared.sh     # (on the machine)
# Rows: the parse floor and cold runs over the trees (--jobs 1, 2, 8: $JOBS), gdn2.py alone, ejkernel's file from its
# root, one fix (examples/tpu_matmul.py, the repository as its project), one ejkernel file touched (a comment appended,
# then a comment line at the top; state warm, ejkernel as the project). Best of $REPEAT (default 1) wall, and CPU
# (user + system of the command and its workers). PARSES=1: the module parses of a cold --jobs 1 run (bench/chip/side_by_side.sh). The tool runs there on Python 3.11 with the wheels of .whl-tpu (libcst, typer; no jax needed for these rows).
export PYENV_VERSION=system
PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl-tpu/*.whl || exit
mkdir -p /tmp/b /tmp/revs/base /tmp/revs/now && tar -xJf scratch_tpu/trees.tar.xz -C /tmp/b || exit
tar -xJf scratch_tpu/base.tar.xz -C /tmp/revs/base && tar -xJf scratch_tpu/now.tar.xz -C /tmp/revs/now || exit
cd /tmp/b/trees || exit
nproc; python3 --version
t() { # label, command...
  python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
best = None
for _ in range(int(os.environ.get("REPEAT", "1"))):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if best is None or wall < best[0]:
        best = (wall, cpu, rc)
print(f"{label:40s} wall {best[0]:7.2f} s  cpu {best[1]:7.2f} s  rc {best[2]}", flush=True)
PY
}
mkdir -p /tmp/g && cp "$(find kernel-packages -name gdn2.py | head -1)" /tmp/g/
FILE=ejkernel/kernels/_pallas/tpu/fused_cross_entropy/_pallas_impl_fwd.py
for rev in base now; do (
  R=/tmp/revs/$rev
  export PYTHONPATH=$R:$PYTHONPATH:/tmp/site  # (first: this revision's codemods wins)
  export JAX_CODEMOD_CACHE_DIR=/tmp/cache_$rev
  echo "== $rev: $(python3 -c "import codemods; print(codemods.__file__)")"
  t "parse floor" python3 $R/bench/parse_floor.py kernel-packages site-packages
  for j in ${JOBS:-1 2 8}; do t "trees cold --jobs $j" python3 -m codemods -q --no-cache --jobs $j kernel-packages site-packages; done
  if [ -n "${PARSES:-}" ]; then  # now's bench/cold_phases.py on this revision's codemods: CPU, peak, parses (stderr)
    python3 /tmp/revs/now/bench/cold_phases.py -q --no-cache --jobs 1 kernel-packages site-packages 2>&1 >/dev/null | grep -v "^[0-9]* files scanned"
  fi
  (cd /tmp/g && t "gdn2.py alone" python3 -m codemods -q --no-cache gdn2.py)
  rm -rf /tmp/ej && cp -r kernel-packages/ejkernel-0.0.80.3 /tmp/ej && printf '[tool.jax-codemod]\n' > /tmp/ej/pyproject.toml
  (cd /tmp/ej && t "ejkernel file, cold" python3 -m codemods -q --no-cache $FILE)
  (cd $R && t "one fix (examples/tpu_matmul.py)" python3 -m codemods -q --no-cache examples/tpu_matmul.py)
  (cd /tmp/ej && python3 -m codemods -q . >/dev/null 2>&1; python3 -m codemods -q $FILE >/dev/null 2>&1
   echo "# touched" >> $FILE && t "ejkernel file touched (comment appended)" python3 -m codemods -q $FILE
   sed -i '1i # touched at the top' $FILE && t "ejkernel file touched (comment at top)" python3 -m codemods -q $FILE)
); done
