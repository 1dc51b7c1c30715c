#!/usr/bin/env python3
"""Share of plausible wrong solutions that attnlab names.

Every file under bench/held_out/<exercise>/ is a wrong answer written for this
measurement, apart from the exercises' own wrong/ fixtures (loop style, no
probe() calls). Its first line says which catalogued mistake it makes ("-"
when the catalogue has none for it). Prints each verdict, the mistake named
(or the first stage that differs, when none is) and the shares.

    bench/held_out.py [path/to/attnlab]
"""
import json, pathlib, subprocess, sys

here = pathlib.Path(__file__).resolve().parent
attnlab = sys.argv[1] if len(sys.argv) > 1 else str(here.parent / 'build/app/cli/attnlab')
total = named = as_expected = catalogued = located = 0
for f in sorted(here.glob('held_out/*/*.cpp')):
    ex = f.parent.name
    expect = f.read_text().splitlines()[0].removeprefix('// expect: ').split()[0]
    run = subprocess.run([attnlab, 'check', ex, str(f), '--json'], capture_output=True, text=True)
    try:
        r = json.loads(run.stdout)
    except json.JSONDecodeError:
        r = {'verdict': 'no json'}
    got = (r.get('mistake') or {}).get('id', '')
    stage = r.get('first_differing_stage', '')
    total += 1
    catalogued += expect != '-'
    named += bool(got)
    as_expected += got == expect
    located += bool(got or stage)
    print(f"{ex:16} {f.name:28} {r.get('verdict', ''):14} expect {expect:30} named {got or '-':30} {stage}")
print(f'named: {named} of {total} ({100 * named // total} %), {as_expected} as expected; '
      f'{catalogued} of the {total} make a catalogued mistake; '
      f'named or located to a stage: {located} of {total}')
