#!/usr/bin/env python3
"""An independent transcription of the one-permutation family's definitions (crates/sketch/src/sketcher.rs
and oph.rs): prints the golden signature that golden_signature_never_changes pins, then the
one-permutation module's golden keys and minvalues (golden_keys_never_change). From signature
version 9 a page's minvalues are the pre-images: in each bin the shingle whose image is smallest.
Needs the xxhash package (pip install xxhash)."""
import xxhash, struct
M=(1<<64)-1
def sm(state):
    state=(state+0x9E3779B97F4A7C15)&M
    z=state
    z=((z^(z>>30))*0xBF58476D1CE4E5B9)&M
    z=((z^(z>>27))*0x94D049BB133111EB)&M
    return state, z^(z>>31)
def fmix(z):
    z=((z^(z>>30))*0xBF58476D1CE4E5B9)&M
    z=((z^(z>>27))*0x94D049BB133111EB)&M
    return z^(z>>31)
seed=0x6e65617264757001
st=seed^0x666173745f686173
st,s1=sm(st); st,s2=sm(st); st,s3=sm(st)
B=s2|1
terms="near duplicate web pages are everywhere on the web".split(' ')
f=[xxhash.xxh3_64_intdigest(t.encode(), seed=s1) for t in terms]
tok=xxhash.xxh3_64_intdigest(b''.join(struct.pack('<Q',x) for x in f), seed=0)
k=5; n=len(f)
sh=set()
for j in range(n):
    h=0
    for i in range(k): h=(h*B+f[(j+i)%n])&M
    sh.add(h)
st=seed^0x4f50485f64656e73
st,k1=sm(st); st,k2=sm(st)
m=84; ROUNDS=16
def winners(xs):
    """Each bin's (image, pre-image): the smallest image thrown into it, and its element."""
    out=[]
    for i in range(m):
        for r in range(ROUNDS):
            kr=fmix((k2+r)&M)
            thrown=[(h,x) for (h,x) in ((fmix(x^kr),x) for x in xs) if ((h>>32)*m)>>32==i]
            if thrown: out.append(min(thrown)); break
        else:
            out.append(min((fmix(x^fmix((k1+i)&M)),x) for x in xs))
    return out
def minvalues(xs): return [h for h,_ in winners(xs)]
out=[x for _,x in winners(sh)]
sup=[xxhash.xxh3_64_intdigest(b''.join(struct.pack('<Q',x) for x in out[j*14:(j+1)*14]), seed=s3) for j in range(6)]
print((tok, sup, out[0], out[83]))
# The one-permutation module's golden keys (crates/sketch/src/oph.rs golden_keys_never_change).
print('%x %x %s' % (fmix(k2), fmix(k1), minvalues(range(1,11))[:12]))
