#!/usr/bin/env python3
"""Fresh CUDA kernels (bench/held_out_cuda/<exercise>/{right,wrong}/*.cu),
written to test attnlab, not fixtures: how many right ones pass, how many
wrong ones are rejected, and how many of those get a name (a fault or rule
cause, or a catalogued mistake) rather than a bare wrong answer. A benchmark:
it prints figures and asserts nothing.

    bench/held_out_cuda.py [path/to/attnlab]
"""
import json, os, pathlib, subprocess, sys, tempfile

here = pathlib.Path(__file__).resolve().parent
attnlab = sys.argv[1] if len(sys.argv) > 1 else str(here.parent / 'build/app/cli/attnlab')
home = tempfile.mkdtemp(prefix='attnlab-held-out-cuda-')
counts = {'right': 0, 'passed': 0, 'wrong': 0, 'rejected': 0, 'named': 0}
for f in sorted(here.glob('held_out_cuda/*/*/*.cu')):
    ex, kind = f.parent.parent.name, f.parent.name
    run = subprocess.run([attnlab, 'check', '--json', ex, str(f)], capture_output=True, text=True,
                         env=dict(os.environ, ATTNLAB_HOME=home))
    try:
        r = json.loads(run.stdout)
    except json.JSONDecodeError:
        r = {'verdict': 'no json'}
    verdict = r.get('verdict', '?')
    name = r.get('cause') or (r.get('mistake') or {}).get('id', '')
    if kind == 'right':
        counts['right'] += 1
        counts['passed'] += verdict == 'pass'
    else:
        counts['wrong'] += 1
        counts['rejected'] += verdict != 'pass'
        counts['named'] += verdict != 'pass' and bool(name)
    print(f'{ex}/{kind}/{f.name}: {verdict} {name}')
print(f"right: {counts['passed']}/{counts['right']} pass; wrong: {counts['rejected']}/{counts['wrong']} rejected, "
      f"{counts['named']}/{counts['wrong']} named ({100 * counts['named'] / max(1, counts['wrong']):.0f}%)")
