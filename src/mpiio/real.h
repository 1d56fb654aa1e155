/*
 * The MPI library's own MPI-IO functions, for libcolio_mpiio (the PMPI
 * interposer). The interposer defines both MPI_File_x and PMPI_File_x
 * (Fortran bindings of Open MPI 4.1 and MPICH's mpi_f08 call the PMPI
 * names directly), so the real ones are found with dlsym(RTLD_NEXT) and
 * never called by name. One X-macro lists them: name, return, parameters,
 * arguments.
 */
#ifndef COLIO_MPIIO_REAL_H
#define COLIO_MPIIO_REAL_H

#include <mpi.h>

/*
 * The collective data calls, by family; CT is the count type (int, or
 * MPI_Count for the MPI-4 _c forms), S the name suffix.
 */
#define COLIO_DATA_FUNCS(X, CT, S)                                                                              \
    X(File_write_all##S, (MPI_File fh, const void *buf, CT count, MPI_Datatype datatype, MPI_Status *status))  \
    X(File_read_all##S, (MPI_File fh, void *buf, CT count, MPI_Datatype datatype, MPI_Status *status))         \
    X(File_write_at_all##S, (MPI_File fh, MPI_Offset offset, const void *buf, CT count, MPI_Datatype datatype, \
                             MPI_Status *status))                                                              \
    X(File_read_at_all##S, (MPI_File fh, MPI_Offset offset, void *buf, CT count, MPI_Datatype datatype,        \
                            MPI_Status *status))                                                               \
    X(File_iwrite_all##S, (MPI_File fh, const void *buf, CT count, MPI_Datatype datatype, MPI_Request *request)) \
    X(File_iread_all##S, (MPI_File fh, void *buf, CT count, MPI_Datatype datatype, MPI_Request *request))      \
    X(File_iwrite_at_all##S, (MPI_File fh, MPI_Offset offset, const void *buf, CT count, MPI_Datatype datatype, \
                              MPI_Request *request))                                                           \
    X(File_iread_at_all##S, (MPI_File fh, MPI_Offset offset, void *buf, CT count, MPI_Datatype datatype,       \
                             MPI_Request *request))                                                            \
    X(File_write_all_begin##S, (MPI_File fh, const void *buf, CT count, MPI_Datatype datatype))               \
    X(File_read_all_begin##S, (MPI_File fh, void *buf, CT count, MPI_Datatype datatype))                      \
    X(File_write_at_all_begin##S, (MPI_File fh, MPI_Offset offset, const void *buf, CT count,                 \
                                   MPI_Datatype datatype))                                                     \
    X(File_read_at_all_begin##S, (MPI_File fh, MPI_Offset offset, void *buf, CT count, MPI_Datatype datatype))

/* The independent data calls at the individual file pointer: the MPI library's, but the pointer is followed. */
#define COLIO_POINTER_FUNCS(X, CT, S)                                                                           \
    X(File_write##S, (MPI_File fh, const void *buf, CT count, MPI_Datatype datatype, MPI_Status *status))      \
    X(File_read##S, (MPI_File fh, void *buf, CT count, MPI_Datatype datatype, MPI_Status *status))             \
    X(File_iwrite##S, (MPI_File fh, const void *buf, CT count, MPI_Datatype datatype, MPI_Request *request))   \
    X(File_iread##S, (MPI_File fh, void *buf, CT count, MPI_Datatype datatype, MPI_Request *request))

#if MPI_VERSION >= 4 /* MPICH 4 exports the large-count forms (current IOR calls them); Open MPI 4.1 has none */
#define COLIO_LARGE_COUNT_FUNCS(X) COLIO_DATA_FUNCS(X, MPI_Count, _c) COLIO_POINTER_FUNCS(X, MPI_Count, _c)
#else
#define COLIO_LARGE_COUNT_FUNCS(X)
#endif

/* Wrapped by interpose.c (under both names); the real ones are what it calls. */
#define COLIO_WRAPPED_FUNCS(X)                                                                                  \
    X(Info_set, (MPI_Info info, const char *key, const char *value))                                          \
    X(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))                \
    X(File_close, (MPI_File * fh))                                                                             \
    X(File_delete, (const char *filename, MPI_Info info))                                                      \
    X(File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,               \
                      const char *datarep, MPI_Info info))                                                     \
    X(File_set_info, (MPI_File fh, MPI_Info info))                                                             \
    X(File_set_atomicity, (MPI_File fh, int flag))                                                             \
    X(File_sync, (MPI_File fh))                                                                                \
    X(File_set_size, (MPI_File fh, MPI_Offset size))                                                           \
    X(File_preallocate, (MPI_File fh, MPI_Offset size))                                                        \
    X(File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))                                  \
    X(File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))                                         \
    X(File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))                               \
    X(File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))                                      \
    X(File_get_position, (MPI_File fh, MPI_Offset * offset))                                                   \
    X(File_seek, (MPI_File fh, MPI_Offset offset, int whence))                                                 \
    COLIO_DATA_FUNCS(X, int, )                                                                                 \
    COLIO_POINTER_FUNCS(X, int, )                                                                              \
    COLIO_LARGE_COUNT_FUNCS(X)

/* Pointers to the real PMPI_* functions, named colio_real.File_open etc. */
typedef struct colio_real {
#define COLIO_REAL_FIELD_(name, params) int(*name) params;
    COLIO_WRAPPED_FUNCS(COLIO_REAL_FIELD_)
#undef COLIO_REAL_FIELD_
} colio_real_t;

/* The real functions, looked up at the first call; a missing one stops the program with a message. */
__attribute__((visibility("hidden"))) const colio_real_t *colio_real(void);

#endif
