"""Session 35: how much of the default estuary a host computes with dry-land skipping.

For each depth frame (ASCII grids), the cells in an 8 x 8 square (storage coordinates, one ghost
layer) with a wet cell or next to one, plus the block's outermost cells (what must be computed),
against what host tiles of 128x8, 64x8 and 256x8 compute (the bounding box of their part) and
what they would compute with runs of columns instead of one box. A square is taken as active
where it holds a wet cell (dry cells that changed are rare). Frames from

    shwa run inputs/estuary.toml --set 'output.formats=["asc"]' --set 'output.fields=["h"]' \
      --set output.dir=/tmp/easc --overwrite --set time.output_interval=1350
    python3 skip_cells.py /tmp/easc/asc
"""
import sys
DIR = sys.argv[1] if len(sys.argv) > 1 else "/tmp/easc/asc"
def load(f):
    with open(f) as fh:
        hdr={}
        for _ in range(6):
            k,v=fh.readline().split(); hdr[k.lower()]=float(v)
        rows=[list(map(float,l.split())) for l in fh if l.strip()]
    return rows[::-1]
eps=0.005; ng=1; K=8
for k in range(5):
    h=load(f'{DIR}/h_{k:04d}.asc'); ny=len(h); nx=len(h[0])
    NY=ny+2*ng; NX=nx+2*ng
    sy=(NY+K-1)//K; sx=(NX+K-1)//K
    sq=[[False]*sx for _ in range(sy)]
    nwet=0
    for j in range(ny):
        r=h[j]
        for i in range(nx):
            if r[i]>=eps:
                nwet+=1; sq[(j+ng)//K][(i+ng)//K]=True
    need=[bytearray(nx) for _ in range(ny)]
    for jb in range(sy):
        for ib in range(sx):
            if sq[jb][ib]:
                for J in range(max(jb*K-1,0),min((jb+1)*K+1,NY)):
                    j=J-ng
                    if 0<=j<ny:
                        a=max(ib*K-1-ng,0); b=min((ib+1)*K+1-ng,nx)
                        need[j][a:b]=b'\x01'*(b-a)
    for j in range(ny):
        need[j][0]=need[j][nx-1]=1
    need[0][:]=b'\x01'*nx; need[ny-1][:]=b'\x01'*nx
    tot=sum(sum(r) for r in need)
    out=[]
    for TX,TY in [(128,8),(64,8),(256,8)]:
        bbox=runs=0
        for j0 in range(0,ny,TY):
            for i0 in range(0,nx,TX):
                i1=min(i0+TX,nx); j1=min(j0+TY,ny)
                rows=[j for j in range(j0,j1) if any(need[j][i0:i1])]
                if not rows: continue
                cols=[i for i in range(i0,i1) if any(need[j][i] for j in range(j0,j1))]
                nr=rows[-1]-rows[0]+1
                bbox+=nr*(cols[-1]-cols[0]+1); runs+=nr*len(cols)
        out.append(f'{TX}x{TY}: bbox {bbox/(nx*ny):.3f} runs {runs/(nx*ny):.3f}')
    print(f'frame {k}: wet {nwet/(nx*ny):.3f} needed {tot/(nx*ny):.3f} |', ' | '.join(out))
