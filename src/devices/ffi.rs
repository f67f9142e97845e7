//! The one boundary with the OpenCL ICD loader: every `unsafe` of the
//! device support is here. The loader (`libOpenCL.so.1`, or
//! `$CLASP_OPENCL_LIBRARY`) is opened at run time with `libloading`, so a
//! machine without OpenCL runs clasp as well (the caller says there is no
//! loader); only the dozen entry points clasp calls are looked up, and they
//! are wrapped in safe functions that own what they create (contexts and
//! programs are released on every path).

use std::ffi::{c_char, c_void, CString};

type ClInt = i32;
type ClUint = u32;
type Handle = *mut c_void;

const CL_SUCCESS: ClInt = 0;
const CL_DEVICE_NOT_FOUND: ClInt = -1;
/// `cl_khr_icd`: the loader found no vendor (no `.icd` file, or none loads).
const CL_PLATFORM_NOT_FOUND_KHR: ClInt = -1001;
const CL_DEVICE_TYPE_ALL: u64 = 0xFFFF_FFFF;
const CL_PROGRAM_BUILD_LOG: ClUint = 0x1183;
/// `cl_name_version`: a packed version and a 64-byte name.
const NAME_VERSION_SIZE: usize = 4 + 64;

/// Platform queries (`cl_platform_info`).
pub const CL_PLATFORM_VERSION: ClUint = 0x0901;
pub const CL_PLATFORM_NAME: ClUint = 0x0902;
pub const CL_PLATFORM_VENDOR: ClUint = 0x0903;
/// Device queries (`cl_device_info`).
pub const CL_DEVICE_COMPILER_AVAILABLE: ClUint = 0x1028;
pub const CL_DEVICE_NAME: ClUint = 0x102B;
pub const CL_DEVICE_VENDOR: ClUint = 0x102C;
pub const CL_DRIVER_VERSION: ClUint = 0x102D;
pub const CL_DEVICE_VERSION: ClUint = 0x102F;
pub const CL_DEVICE_OPENCL_C_VERSION: ClUint = 0x103D;
pub const CL_DEVICE_OPENCL_C_ALL_VERSIONS: ClUint = 0x1066;
pub const CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT: ClUint = 0x1069;
pub const CL_DEVICE_OPENCL_C_FEATURES: ClUint = 0x106F;

type GetPlatformIds = unsafe extern "C" fn(ClUint, *mut Handle, *mut ClUint) -> ClInt;
type GetInfo = unsafe extern "C" fn(Handle, ClUint, usize, *mut c_void, *mut usize) -> ClInt;
type GetDeviceIds = unsafe extern "C" fn(Handle, u64, ClUint, *mut Handle, *mut ClUint) -> ClInt;
type Notify = Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>;
type CreateContext = unsafe extern "C" fn(*const isize, ClUint, *const Handle, Notify, *mut c_void, *mut ClInt) -> Handle;
type CreateProgram = unsafe extern "C" fn(Handle, ClUint, *const *const c_char, *const usize, *mut ClInt) -> Handle;
type BuildNotify = Option<unsafe extern "C" fn(Handle, *mut c_void)>;
type BuildProgram = unsafe extern "C" fn(Handle, ClUint, *const Handle, *const c_char, BuildNotify, *mut c_void) -> ClInt;
type GetBuildInfo = unsafe extern "C" fn(Handle, Handle, ClUint, usize, *mut c_void, *mut usize) -> ClInt;
type Release = unsafe extern "C" fn(Handle) -> ClInt;

/// The loader and the entry points clasp calls. The function pointers stay
/// valid as long as `_library` is loaded, which is as long as this value.
pub struct OpenCl {
    get_platform_ids: GetPlatformIds,
    get_platform_info: GetInfo,
    get_device_ids: GetDeviceIds,
    get_device_info: GetInfo,
    create_context: CreateContext,
    create_program: CreateProgram,
    build_program: BuildProgram,
    get_build_info: GetBuildInfo,
    release_program: Release,
    release_context: Release,
    _library: libloading::Library,
}

/// A platform or device id handed out by the loader; only meaningful with the `OpenCl` that listed it.
#[derive(Debug, Clone, Copy)]
pub struct Id(Handle);

/// Why the ICD loader cannot be used, or an OpenCL call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClError {
    /// The library could not be opened.
    #[error("cannot load {name}: {source}")]
    Load { name: String, source: libloading::Error },
    /// The library lacks an OpenCL function.
    #[error("{symbol}: {source}")]
    Symbol { symbol: String, source: libloading::Error },
    /// A call answered a status other than `CL_SUCCESS`.
    #[error("{call} failed ({})", status_name(*status))]
    Call { call: &'static str, status: ClInt },
    /// Build options cannot be handed to C.
    #[error("build options contain a NUL byte")]
    NulInOptions,
}

/// Why a device did not build a program.
#[derive(Debug, thiserror::Error)]
pub enum BuildFailure {
    /// The device's compiler rejected it: its build log.
    #[error("{log}")]
    Rejected { log: String },
    /// An OpenCL call failed (the build too, with no log to say why).
    #[error(transparent)]
    Call(#[from] ClError),
}

/// The library clasp opens: the loader's soname, or `$CLASP_OPENCL_LIBRARY`.
pub fn library_name() -> String {
    std::env::var("CLASP_OPENCL_LIBRARY").unwrap_or_else(|_| "libOpenCL.so.1".to_string())
}

impl OpenCl {
    /// Opens the ICD loader; an error says why it cannot be used.
    pub fn load() -> Result<OpenCl, ClError> {
        let name = library_name();
        // SAFETY: loading a shared library runs its initialisers; the ICD
        // loader's only read the vendor list. Nothing else is assumed here.
        let library =
            unsafe { libloading::Library::new(&name) }.map_err(|source| ClError::Load { name: name.clone(), source })?;
        // SAFETY: each symbol is looked up under its OpenCL name and given
        // the signature the OpenCL 3.0 headers (CL/cl.h) declare for it.
        unsafe {
            Ok(OpenCl {
                get_platform_ids: symbol(&library, b"clGetPlatformIDs\0")?,
                get_platform_info: symbol(&library, b"clGetPlatformInfo\0")?,
                get_device_ids: symbol(&library, b"clGetDeviceIDs\0")?,
                get_device_info: symbol(&library, b"clGetDeviceInfo\0")?,
                create_context: symbol(&library, b"clCreateContext\0")?,
                create_program: symbol(&library, b"clCreateProgramWithSource\0")?,
                build_program: symbol(&library, b"clBuildProgram\0")?,
                get_build_info: symbol(&library, b"clGetProgramBuildInfo\0")?,
                release_program: symbol(&library, b"clReleaseProgram\0")?,
                release_context: symbol(&library, b"clReleaseContext\0")?,
                _library: library,
            })
        }
    }

    /// Every platform the loader knows (none is not an error: `PLATFORM_NOT_FOUND_KHR`).
    pub fn platforms(&self) -> Result<Vec<Id>, ClError> {
        let mut count: ClUint = 0;
        // SAFETY: a null array with 0 entries asks only for the count, written to `count`.
        let status = unsafe { (self.get_platform_ids)(0, std::ptr::null_mut(), &mut count) };
        if status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0) {
            return Ok(Vec::new());
        }
        check(status, "clGetPlatformIDs")?;
        let mut ids: Vec<Handle> = vec![std::ptr::null_mut(); count as usize];
        // SAFETY: `ids` has room for `count` handles.
        check(unsafe { (self.get_platform_ids)(count, ids.as_mut_ptr(), std::ptr::null_mut()) }, "clGetPlatformIDs")?;
        Ok(ids.into_iter().map(Id).collect())
    }

    /// Every device of a platform (none is not an error).
    pub fn devices(&self, platform: Id) -> Result<Vec<Id>, ClError> {
        let mut count: ClUint = 0;
        // SAFETY: as for platforms: the count only.
        let status = unsafe { (self.get_device_ids)(platform.0, CL_DEVICE_TYPE_ALL, 0, std::ptr::null_mut(), &mut count) };
        if status == CL_DEVICE_NOT_FOUND || (status == CL_SUCCESS && count == 0) {
            return Ok(Vec::new());
        }
        check(status, "clGetDeviceIDs")?;
        let mut ids: Vec<Handle> = vec![std::ptr::null_mut(); count as usize];
        // SAFETY: `ids` has room for `count` handles.
        let status =
            unsafe { (self.get_device_ids)(platform.0, CL_DEVICE_TYPE_ALL, count, ids.as_mut_ptr(), std::ptr::null_mut()) };
        check(status, "clGetDeviceIDs")?;
        Ok(ids.into_iter().map(Id).collect())
    }

    /// A platform query's bytes, or `None` when the platform does not answer it.
    pub fn platform_info(&self, platform: Id, param: ClUint) -> Option<Vec<u8>> {
        query(|size, value, size_ret| {
            // SAFETY: `value` has `size` bytes (or is null with size 0); the id came from this loader.
            unsafe { (self.get_platform_info)(platform.0, param, size, value, size_ret) }
        })
    }

    /// A device query's bytes, or `None` when the device does not answer it (an older OpenCL).
    pub fn device_info(&self, device: Id, param: ClUint) -> Option<Vec<u8>> {
        query(|size, value, size_ret| {
            // SAFETY: as for platform_info.
            unsafe { (self.get_device_info)(device.0, param, size, value, size_ret) }
        })
    }

    /// Builds `source` with `options` for `device` alone: Ok(log) when the
    /// device accepts it, else why not: the log, or the failing call.
    pub fn build(&self, device: Id, source: &str, options: &str) -> Result<String, BuildFailure> {
        let context = Context::new(self, device)?;
        let program = context.program(source)?;
        let options = CString::new(options).map_err(|_| ClError::NulInOptions)?;
        // SAFETY: one device from this loader, options NUL-terminated, no callback (a blocking build).
        let status = unsafe { (self.build_program)(program.0, 1, &device.0, options.as_ptr(), None, std::ptr::null_mut()) };
        let log = query(|size, value, size_ret| {
            // SAFETY: `value` has `size` bytes; program and device are live.
            unsafe { (self.get_build_info)(program.0, device.0, CL_PROGRAM_BUILD_LOG, size, value, size_ret) }
        })
        .map(|bytes| text(&bytes))
        .unwrap_or_default();
        match status {
            CL_SUCCESS => Ok(log),
            _ if log.trim().is_empty() => Err(ClError::Call { call: "clBuildProgram", status }.into()),
            _ => Err(BuildFailure::Rejected { log }),
        }
    }
}

/// A context for one device, released when dropped.
struct Context<'a> {
    cl: &'a OpenCl,
    handle: Handle,
}

impl<'a> Context<'a> {
    fn new(cl: &'a OpenCl, device: Id) -> Result<Context<'a>, ClError> {
        let mut status: ClInt = CL_SUCCESS;
        // SAFETY: no properties (the device's platform is implied), one device id from this loader, no callback.
        let handle = unsafe { (cl.create_context)(std::ptr::null(), 1, &device.0, None, std::ptr::null_mut(), &mut status) };
        if handle.is_null() || status != CL_SUCCESS {
            return Err(ClError::Call { call: "clCreateContext", status });
        }
        Ok(Context { cl, handle })
    }

    /// A program made of `source`, released when dropped.
    fn program(&self, source: &str) -> Result<Program<'a>, ClError> {
        let mut status: ClInt = CL_SUCCESS;
        let (pointer, length) = (source.as_ptr() as *const c_char, source.len());
        // SAFETY: one string given with its length (no NUL needed); the context is live.
        let handle = unsafe { (self.cl.create_program)(self.handle, 1, &pointer, &length, &mut status) };
        if handle.is_null() || status != CL_SUCCESS {
            return Err(ClError::Call { call: "clCreateProgramWithSource", status });
        }
        Ok(Program(handle, self.cl))
    }
}

impl Drop for Context<'_> {
    fn drop(&mut self) {
        // SAFETY: the context was created by this loader and is released once.
        unsafe { (self.cl.release_context)(self.handle) };
    }
}

struct Program<'a>(Handle, &'a OpenCl);

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: the program was created by this loader and is released once (before its context).
        unsafe { (self.1.release_program)(self.0) };
    }
}

/// # Safety
/// `T` must be the function pointer type of the symbol `name` (NUL-terminated).
unsafe fn symbol<T: Copy>(library: &libloading::Library, name: &[u8]) -> Result<T, ClError> {
    // SAFETY: the caller gives the symbol's real type; the pointer is copied
    // out and used only while `library` stays loaded (`OpenCl` owns both).
    let symbol = String::from_utf8_lossy(name.strip_suffix(b"\0").unwrap_or(name)).into_owned();
    unsafe { library.get::<T>(name) }.map(|s| *s).map_err(|source| ClError::Symbol { symbol, source })
}

/// The two-call size-then-value pattern of every `clGet*Info`.
fn query(call: impl Fn(usize, *mut c_void, *mut usize) -> ClInt) -> Option<Vec<u8>> {
    let mut size = 0usize;
    if call(0, std::ptr::null_mut(), &mut size) != CL_SUCCESS {
        return None;
    }
    let mut bytes = vec![0u8; size];
    if call(size, bytes.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) != CL_SUCCESS {
        return None;
    }
    Some(bytes)
}

/// A returned string: up to its NUL, lossily UTF-8.
pub fn text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).trim().to_string()
}

/// A `cl_uint`/`cl_bool` answer.
pub fn uint(bytes: &[u8]) -> Option<u32> {
    Some(u32::from_ne_bytes(bytes.get(..4)?.try_into().ok()?))
}

/// A `cl_name_version` array: (name, major, minor) each.
pub fn name_versions(bytes: &[u8]) -> Vec<(String, u32, u32)> {
    bytes
        .chunks_exact(NAME_VERSION_SIZE)
        .filter_map(|entry| {
            let version = uint(entry)?;
            // CL_VERSION_MAJOR/MINOR: 10 bits of major, 10 of minor, 12 of patch.
            Some((text(&entry[4..]), version >> 22, (version >> 12) & 0x3ff))
        })
        .collect()
}

fn check(status: ClInt, call: &'static str) -> Result<(), ClError> {
    match status {
        CL_SUCCESS => Ok(()),
        _ => Err(ClError::Call { call, status }),
    }
}

/// The name of an OpenCL status, for messages.
fn status_name(status: ClInt) -> String {
    let name = match status {
        -1 => "CL_DEVICE_NOT_FOUND",
        -2 => "CL_DEVICE_NOT_AVAILABLE",
        -3 => "CL_COMPILER_NOT_AVAILABLE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -30 => "CL_INVALID_VALUE",
        -33 => "CL_INVALID_DEVICE",
        -43 => "CL_INVALID_BUILD_OPTIONS",
        -66 => "CL_INVALID_COMPILER_OPTIONS",
        _ => return format!("status {status}"),
    };
    format!("{name}, {status}")
}
