#!/usr/bin/env python3
"""Two builds, the same verdicts? Runs `attnlab check --json` on every CUDA
exercise file of the given courses (solution.cu, right/, wrong/) with both
builds, each with its own empty ATTNLAB_HOME, and prints every difference
outside timings and NVRTC's log: verdicts, faults, lines, counters, messages.
For a change to the emulator, the learner headers or the runner that must not
change what a learner is told (build the old revision in its own folder).
Exits 1 when anything differs, 0 when all is the same.

  scripts/compare_checks.py [--every-file] [--all-runtimes] [--ignore=KEY...] BUILD_A BUILD_B COURSE_DIR [COURSE_DIR...]
  scripts/compare_checks.py --kernels BUILD_A BUILD_B COURSE_DIR [COURSE_DIR...]
  e.g. scripts/compare_checks.py /tmp/build-old build exercises tests/fixtures/cuda-course

  --every-file    every source file under an exercise folder (starter, starter.id,
                  attacks/, probes/, ...), not only solution, right/ and wrong/
  --all-runtimes  C++ exercises too (.cpp files): their per-case `cuda` column is
                  attnlab's own kernel on the emulator
  --ignore=KEY    leave out every value under KEY too (a change the caller has
                  already explained, e.g. --ignore=device), so the rest shows
  --kernels       instead of checks: diff the two builds' `bench/attnlab-kernel-dump`
                  (every launch of attnlab's kernels on the courses' cases: counters,
                  faults, output hashes, and the attention layouts comparison)
"""
import json, os, subprocess, sys, glob, tempfile

IGNORED = {'ms', 'log', 'timing_ms', 'cpu', 'compile_cached', 'source', 'file', 'binary'}

def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if not (k.endswith('_ms') or k in IGNORED)}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o

def run(build, home, course, ex, f):
    env = dict(os.environ, ATTNLAB_HOME=home)
    try:
        p = subprocess.run([f'{build}/app/cli/attnlab', '--course', course, 'check', ex, f, '--json'], capture_output=True, text=True, env=env, timeout=300)
    except subprocess.TimeoutExpired:
        return {'unparsable': 'timed out after 300 s'}
    try:
        return strip(json.loads(p.stdout))
    except Exception:
        return {'unparsable': p.stdout[-500:], 'stderr': p.stderr[-500:]}

def diff(a, b, path=''):
    out = []
    if type(a) != type(b):
        return [f'{path}: {str(a)[:80]} != {str(b)[:80]}']
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            out += diff(a.get(k), b.get(k), f'{path}.{k}')
    elif isinstance(a, list):
        if len(a) != len(b):
            return [f'{path}: len {len(a)} != {len(b)}']
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, f'{path}[{i}]')
    elif a != b:
        out.append(f'{path}: {str(a)[:80]} != {str(b)[:80]}')
    return out

def exercise_files(d, ext, every_file):
    if every_file:
        return sorted(glob.glob(f'{d}/**/*{ext}', recursive=True))
    files = [f'{d}/solution{ext}'] + sorted(glob.glob(f'{d}/right/*{ext}') + glob.glob(f'{d}/wrong/*{ext}'))
    return [f for f in files if os.path.exists(f)]

def compare_checks(A, B, courses, every_file, all_runtimes):
    ha, hb = tempfile.mkdtemp(), tempfile.mkdtemp()
    total = bad = 0
    for course in courses:
        for exdir in sorted(glob.glob(f'{course}/*/exercise.json')):
            d = os.path.dirname(exdir)
            ex = json.load(open(exdir))
            runtime = ex.get('runtime', 'cpp')
            if runtime != 'cuda' and not all_runtimes:
                continue
            for f in exercise_files(d, '.cu' if runtime == 'cuda' else '.cpp', every_file):
                ra, rb = run(A, ha, course, ex['id'], f), run(B, hb, course, ex['id'], f)
                total += 1
                # No JSON on either side proves nothing: never "same".
                ds = diff(ra, rb) or [f'{side}: no JSON: {r["unparsable"][:80]!r}' for side, r in (('A', ra), ('B', rb)) if 'unparsable' in r]
                if ds:
                    bad += 1
                    print(f'DIFF {ex["id"]} {os.path.relpath(f, d)}:', *ds[:8], sep='\n   ')
                else:
                    print(f'same {ex["id"]} {os.path.relpath(f, d)} verdict={ra.get("verdict")}')
                sys.stdout.flush()
    print(f'{total} files, {bad} differ')
    return bad == 0

def kernel_dump(build, courses):
    exe = f'{build}/bench/attnlab-kernel-dump'
    if not os.path.exists(exe):
        sys.exit(f'{exe} missing: cmake --build {build} --target attnlab-kernel-dump')
    p = subprocess.run([exe, *courses], capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:  # never "same": two builds failing alike prove nothing
        sys.exit(f'{exe} exited with {p.returncode}: {p.stderr[-500:]}')
    return json.loads(p.stdout)

def compare_kernels(A, B, courses):
    ds = diff(strip(kernel_dump(A, courses)), strip(kernel_dump(B, courses)))
    for d in ds:
        print(d)
    print(f'kernel dump: {len(ds)} values differ')
    return not ds

args = sys.argv[1:]
IGNORED |= {a[len('--ignore='):] for a in args if a.startswith('--ignore=')}
flags = {a for a in args if a.startswith('--') and not a.startswith('--ignore=')}
positional = [a for a in args if not a.startswith('--')]
if len(positional) < 3 or flags - {'--every-file', '--all-runtimes', '--kernels'}:
    sys.exit(__doc__)
A, B, courses = positional[0], positional[1], positional[2:]
if '--kernels' in flags:
    same = compare_kernels(A, B, courses)
else:
    same = compare_checks(A, B, courses, '--every-file' in flags, '--all-runtimes' in flags)
sys.exit(0 if same else 1)
