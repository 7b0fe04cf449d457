#!/usr/bin/env python3
"""Import cycles between the sibling modules of each crate (crate::x and super::x uses);
prints every cycle found and exits 1 if there is one."""
import re,glob,os,sys
bad=0
for crate in sorted(glob.glob('crates/*/src'))+['src']:
    mods={}
    for f in glob.glob(crate+'/**/*.rs',recursive=True):
        rel=os.path.relpath(f,crate)[:-3]
        if rel in ('lib','main'): continue
        name=rel.replace('/mod','').replace('/','::')
        text='\n'.join(l for l in open(f).read().split('\n') if not l.strip().startswith('//'))
        deps=set()
        for m in re.findall(r'crate::([a-z_]+(?:::[a-z_]+)?)',text):
            deps.add(m)
        for m in re.findall(r'super::([a-z_]+)',text):
            parent=name.rsplit('::',1)[0] if '::' in name else ''
            deps.add((parent+'::' if parent else '')+m)
        mods[name]=deps
    names=set(mods)
    def norm(d):
        if d in names: return d
        top=d.split('::')[0]
        return top if top in names else None
    g={m:{norm(d) for d in ds if norm(d) and norm(d)!=m and not norm(d).startswith(m+'::') and not m.startswith(norm(d)+'::')} for m,ds in mods.items()}
    # find cycles via DFS
    color={}
    def dfs(u,stack):
        global bad
        color[u]=1; stack.append(u)
        for v in g.get(u,()):
            if color.get(v)==1:
                print(crate, 'cycle:', ' -> '.join(stack[stack.index(v):]+[v])); bad=1
            elif not color.get(v): dfs(v,stack)
        stack.pop(); color[u]=2
    for m in g:
        if not color.get(m): dfs(m,[])
sys.exit(bad)
