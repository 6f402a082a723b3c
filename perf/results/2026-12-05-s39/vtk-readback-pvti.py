# The pieces of a run on several ranks, joined by VTK's .pvti reader, against one rank's .vti:
#   /usr/bin/python3 vtk-readback-pvti.py ONE_RANK/vtk/shwa_0003.vti TWO_RANKS/vtk/shwa_0003.pvti
import sys
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def load(path):
    r = vtk.vtkXMLPImageDataReader() if path.endswith('pvti') else vtk.vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    cd = r.GetOutput().GetCellData()
    return {cd.GetArrayName(i): (vtk_to_numpy(cd.GetArray(i)).copy(), cd.GetArray(i).GetDataTypeAsString())
            for i in range(cd.GetNumberOfArrays())}


a, b = load(sys.argv[1]), load(sys.argv[2])
for k in a:
    print(k, a[k][1], b[k][1], 'equal' if np.array_equal(a[k][0], b[k][0], equal_nan=True) else 'DIFFERENT')
