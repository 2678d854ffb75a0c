// Reading task inputs (rows of an HDF5 dataset) lives here; see dataset_reader.hpp.
