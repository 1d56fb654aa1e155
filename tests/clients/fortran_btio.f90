! A BTIO-like, self-checking MPI-IO program in Fortran (use mpi); run_client.cmake
! compares its file with and without libcolio_mpiio (reached here through the
! Fortran bindings).
!
! usage: fortran_btio PATH
!
! A 12 x 10 x 9 array of double precision, in blocks over an MPI_Dims_create
! grid of the ranks (uneven when the sizes do not divide), is written NSTEPS
! times one after the other, as BTIO appends its time steps: through a subarray
! view, steps 0..NSTEPS-2 with MPI_File_write_at_all and the last one with
! MPI_File_write_all after MPI_File_set_view at the step's displacement. Every
! step is read back with MPI_File_read_at_all, then rank 0 reads the whole file
! with plain Fortran stream I/O; each value is checked against a formula of its
! global index and step. On a mismatch or an MPI error: a message and MPI_Abort.
! MPIIO_CLIENT_THREADS=multiple initialises MPI with MPI_THREAD_MULTIPLE.
program fortran_btio
  use mpi
  implicit none
  integer, parameter :: gsizes(3) = [12, 10, 9], nsteps = 4
  integer :: ierr, rank, nprocs, fh, filetype, provided, s, lcount
  integer :: dims(3), lsizes(3), starts(3)
  integer(kind=MPI_OFFSET_KIND) :: gbytes, pos, byte
  double precision, allocatable :: u(:, :, :)
  character(len=4096) :: path
  character(len=16) :: threads

  call get_environment_variable('MPIIO_CLIENT_THREADS', threads)
  if (threads == 'multiple') then
    call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)
  else
    call MPI_Init(ierr)
  end if
  call check(ierr, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (command_argument_count() < 1) call fail('usage: fortran_btio PATH')
  call get_command_argument(1, path)

  call decompose()
  lcount = product(lsizes)
  gbytes = 8_MPI_OFFSET_KIND * product(gsizes)
  allocate (u(lsizes(1), lsizes(2), lsizes(3)))
  call MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, &
                                filetype, ierr)
  call check(ierr, 'MPI_Type_create_subarray')
  call MPI_Type_commit(filetype, ierr)
  call check(ierr, 'MPI_Type_commit')

  if (rank == 0) call MPI_File_delete(trim(path), MPI_INFO_NULL, ierr) ! may not exist
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr, 'MPI_File_open')

  ! the view tiles the file with global arrays: step s begins at byte s * gbytes, which is
  ! element s * lcount of every rank's view
  call set_view(0_MPI_OFFSET_KIND)
  do s = 0, nsteps - 2
    call fill(s)
    call MPI_File_write_at_all(fh, int(s, MPI_OFFSET_KIND) * lcount, u, lcount, MPI_DOUBLE_PRECISION, &
                               MPI_STATUS_IGNORE, ierr)
    call check(ierr, 'MPI_File_write_at_all')
    call MPI_File_get_byte_offset(fh, int(s, MPI_OFFSET_KIND) * lcount, byte, ierr)
    call check(ierr, 'MPI_File_get_byte_offset')
    if (byte /= s * gbytes + 8 * (starts(1) + gsizes(1) * (starts(2) + gsizes(2) * starts(3)))) &
      call fail('write_at_all: the view puts the step at the wrong byte')
  end do

  ! the last step through the file pointer of a view displaced to it
  s = nsteps - 1
  call set_view(s * gbytes)
  call fill(s)
  call MPI_File_write_all(fh, u, lcount, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
  call check(ierr, 'MPI_File_write_all')
  call MPI_File_get_position(fh, pos, ierr)
  call check(ierr, 'MPI_File_get_position')
  if (pos /= lcount) call fail('write_all: wrong file pointer afterwards')

  call set_view(0_MPI_OFFSET_KIND)
  do s = 0, nsteps - 1
    call read_step(s)
  end do
  call MPI_File_close(fh, ierr)
  call check(ierr, 'MPI_File_close')
  if (rank == 0) call check_whole_file()
  call MPI_Type_free(filetype, ierr)
  if (rank == 0) print '(a, i0, a)', 'fortran_btio on ', nprocs, ' ranks: PASS'
  call MPI_Finalize(ierr)

contains

  ! The value of global element (i, j, k) (0-based) at step s: exact in double precision.
  pure double precision function val(i, j, k, s)
    integer, intent(in) :: i, j, k, s
    val = s * 1d6 + i + 100d0 * j + 10000d0 * k + 0.5d0
  end function val

  ! This rank's block: grid coordinates from the rank (first dimension fastest), and
  ! per dimension n / p elements, one more for the first mod(n, p) coordinates.
  subroutine decompose()
    integer :: d, c, rest
    dims = 0
    call MPI_Dims_create(nprocs, 3, dims, ierr)
    call check(ierr, 'MPI_Dims_create')
    rest = rank
    do d = 1, 3
      c = mod(rest, dims(d))
      rest = rest / dims(d)
      lsizes(d) = gsizes(d) / dims(d)
      starts(d) = c * lsizes(d) + min(c, mod(gsizes(d), dims(d)))
      if (c < mod(gsizes(d), dims(d))) lsizes(d) = lsizes(d) + 1
    end do
  end subroutine decompose

  subroutine set_view(at)
    integer(kind=MPI_OFFSET_KIND), intent(in) :: at
    call MPI_File_set_view(fh, at, MPI_DOUBLE_PRECISION, filetype, 'native', MPI_INFO_NULL, ierr)
    call check(ierr, 'MPI_File_set_view')
  end subroutine set_view

  subroutine fill(step)
    integer, intent(in) :: step
    integer :: i, j, k
    do k = 1, lsizes(3)
      do j = 1, lsizes(2)
        do i = 1, lsizes(1)
          u(i, j, k) = val(starts(1) + i - 1, starts(2) + j - 1, starts(3) + k - 1, step)
        end do
      end do
    end do
  end subroutine fill

  subroutine read_step(step)
    integer, intent(in) :: step
    integer :: i, j, k, cnt, status(MPI_STATUS_SIZE)
    character(len=200) :: msg
    u = -1
    call MPI_File_read_at_all(fh, int(step, MPI_OFFSET_KIND) * lcount, u, lcount, MPI_DOUBLE_PRECISION, &
                              status, ierr)
    call check(ierr, 'MPI_File_read_at_all')
    call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
    if (cnt /= lcount) call fail('read_at_all: short count')
    do k = 1, lsizes(3)
      do j = 1, lsizes(2)
        do i = 1, lsizes(1)
          if (u(i, j, k) /= val(starts(1) + i - 1, starts(2) + j - 1, starts(3) + k - 1, step)) then
            write (msg, '(a, i0, a, 3(i0, 1x), a, f14.1)') 'read_at_all: step ', step, ', element ', &
              starts(1) + i - 1, starts(2) + j - 1, starts(3) + k - 1, 'reads', u(i, j, k)
            call fail(trim(msg))
          end if
        end do
      end do
    end do
  end subroutine read_step

  ! rank 0: every value of the file through plain Fortran stream I/O, then the end of file
  subroutine check_whole_file()
    double precision, allocatable :: all(:, :, :)
    integer :: unit, ios, i, j, k, step
    double precision :: extra
    allocate (all(gsizes(1), gsizes(2), gsizes(3)))
    open (newunit=unit, file=trim(path), access='stream', form='unformatted', status='old', &
          action='read', iostat=ios)
    if (ios /= 0) call fail('whole file: cannot open it')
    do step = 0, nsteps - 1
      read (unit, iostat=ios) all
      if (ios /= 0) call fail('whole file: too short')
      do k = 1, gsizes(3)
        do j = 1, gsizes(2)
          do i = 1, gsizes(1)
            if (all(i, j, k) /= val(i - 1, j - 1, k - 1, step)) call fail('whole file: a value differs')
          end do
        end do
      end do
    end do
    read (unit, iostat=ios) extra
    if (ios == 0) call fail('whole file: longer than the steps')
    close (unit)
  end subroutine check_whole_file

  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    character(len=MPI_MAX_ERROR_STRING) :: text
    integer :: len, e
    if (code == MPI_SUCCESS) return
    call MPI_Error_string(code, text, len, e)
    call fail(what//' failed: '//text(1:len))
  end subroutine check

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    integer :: e
    write (0, '(a, i0, a, a)') '[rank ', rank, '] fortran_btio: ', msg
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
    stop 1
  end subroutine fail
end program fortran_btio
