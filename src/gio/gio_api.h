/*
 * GIO 1.0.0's public interface as libcolio_gio provides it (gio.c): the
 * calls, their error codes and the file handle, with the values programs
 * built against GIO's own header use.
 */
#ifndef COLIO_GIO_API_H
#define COLIO_GIO_API_H

#include <mpi.h>

#define COLIO_GIO_VERSION "0.1"

#define GIO_NOERR 0
#define GIO_EEXIST (-35)
#define GIO_EINVAL (-36)
#define GIO_EPERM (-37)
#define GIO_ENOMEM (-61)
#define GIO_EACCESS (-77)
#define GIO_EFILE (-204)
#define GIO_ENEGATIVECNT (-210)
#define GIO_ENOENT (-220)
#define GIO_EINTOVERFLOW (-221)
#define GIO_ENOTENABLED (-222)
#define GIO_EBAD_FILE (-223)
#define GIO_ENO_SPACE (-224)
#define GIO_EQUOTA (-225)
#define GIO_EFSTYPE (-241)
#define GIO_EMULTIDEFINE_AMODE (-251)
#define GIO_EMULTIDEFINE_FNC_ARGS (-269)
#define GIO_EMULTIDEFINE_HINTS (-274)
#define GIO_EFILEVIEW (-275)

typedef struct GIOI_File *GIO_File;

#define GIO_API __attribute__((visibility("default")))

GIO_API const char *GIO_inq_libvers(void);
GIO_API const char *GIO_strerror(int err);
GIO_API const char *GIO_strerrno(int err);
GIO_API int GIO_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, GIO_File *fh);
GIO_API int GIO_close(GIO_File *fh);
GIO_API int GIO_sync(GIO_File fh);
GIO_API int GIO_delete(const char *filename);
GIO_API int GIO_set_size(GIO_File fh, MPI_Offset size);
GIO_API int GIO_get_size(GIO_File fh, MPI_Offset *size);
GIO_API int GIO_get_info(GIO_File fh, MPI_Info *info_used);
GIO_API MPI_Offset GIO_write(GIO_File fh, const void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                             const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                             const MPI_Offset *buf_lens);
GIO_API MPI_Offset GIO_write_all(GIO_File fh, const void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                                 const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                                 const MPI_Offset *buf_lens);
GIO_API MPI_Offset GIO_read(GIO_File fh, void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                            const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                            const MPI_Offset *buf_lens);
GIO_API MPI_Offset GIO_read_all(GIO_File fh, void *buf, MPI_Offset file_npairs, const MPI_Offset *file_offs,
                                const MPI_Offset *file_lens, MPI_Offset buf_npairs, const MPI_Offset *buf_offs,
                                const MPI_Offset *buf_lens);
GIO_API int GIO_flatten_subarray(int ndims, int esize, MPI_Offset disp, const int *sizes, const int *subsizes,
                                 const int *starts, MPI_Offset *npairs, MPI_Offset **offs, MPI_Offset **lens);
GIO_API int GIO_inq_malloc_size(MPI_Offset *size);
GIO_API int GIO_inq_malloc_max_size(MPI_Offset *size);
GIO_API int GIO_inq_malloc_list(void);

#endif
