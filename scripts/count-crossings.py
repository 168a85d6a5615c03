#!/usr/bin/env python3
"""Issue 27's count "internal functions used across modules": the ht__ functions defined in
one folder of src/ and named in another (util excluded: it is every module's friend).
Prints the count, then each (defining module, using module) pair with its uses; -v lists
the names. From the repository's root:  python3 scripts/count-crossings.py [ROOT] [-v]
Not a wall: scripts/check-walls.py and the build check the headers; this counts the names
that go through the friend headers (docs/architecture.md)."""
import re,os,glob,collections,sys
args=[a for a in sys.argv[1:] if a!='-v']
root=args[0] if args else '.'
defs={}
for f in glob.glob(root+'/src/*/*.c'):
    mod=f.split('/')[-2]
    for m in re.finditer(r'^[A-Za-z_][\w \*]*?\b(ht__\w+)\s*\(', open(f).read(), re.M):
        defs.setdefault(m.group(1),mod)
pairs=collections.Counter(); funcs=set(); per=collections.defaultdict(set)
for f in glob.glob(root+'/src/*/*.c'):
    mod=f.split('/')[-2]
    txt=open(f).read()
    for name in set(re.findall(r'\bht__\w+',txt)):
        d=defs.get(name)
        if d and d!=mod and d!='util':
            pairs[(d,mod)]+=1; funcs.add(name); per[(d,mod)].add(name)
print(len(funcs))
for k,v in pairs.most_common(): print(k,v, sorted(per[k])[:40] if '-v' in sys.argv else '')
