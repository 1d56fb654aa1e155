/* PnetCDF's driver under libcolio_mpiio (pnetcdf.c). */
#ifndef COLIO_MPIIO_PNETCDF_H
#define COLIO_MPIIO_PNETCDF_H

/* An MPI_Info_set the program made: nc_driver set to anything but mpiio takes colio's request back. */
void colio_pnetcdf_info_set(const char *key, const char *value);
/* What COLIO_VERBOSE says about it once, or NULL where PNETCDF_HINTS was left as it was. */
const char *colio_pnetcdf_note(void);

#endif
