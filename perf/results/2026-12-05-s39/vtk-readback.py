# Reads the .vti files of two output folders with VTK's own reader (Debian's python3-vtk9) and
# says, array by array, whether the second folder's values are the first's: bit for bit where
# both are doubles, or each the nearest float where the second is single precision.
#   /usr/bin/python3 vtk-readback.py RAW_DOUBLE_DIR/vtk OTHER_DIR/vtk shwa_0005.vti maxima.vti
import sys
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def load(path):
    r = vtk.vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    assert r.GetErrorCode() == 0, path
    cd = r.GetOutput().GetCellData()
    return r.GetOutput().GetDimensions(), {
        cd.GetArrayName(i): (vtk_to_numpy(cd.GetArray(i)).copy(), cd.GetArray(i).GetDataTypeAsString())
        for i in range(cd.GetNumberOfArrays())}


for f in sys.argv[3:]:
    d0, a0 = load(sys.argv[1] + '/' + f)
    d1, a1 = load(sys.argv[2] + '/' + f)
    assert d0 == d1
    for k, (x, t0) in a0.items():
        y, t1 = a1[k]
        if t1 == 'float':
            x = x.astype(np.float32)
        same = x.dtype == y.dtype and np.array_equal(x.view(np.uint8), y.view(np.uint8))
        print(f, k, t0, t1, len(y), 'bit-identical' if same else 'DIFFERENT')
