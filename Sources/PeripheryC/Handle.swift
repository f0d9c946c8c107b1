/// The opaque handles of the C API: a retained Swift object behind each pointer.
///
/// Every handle is checked for its class before use, so that passing one kind of handle where
/// another is expected is an error rather than undefined behaviour (a pointer that is no handle at
/// all still is).
enum Handle {
    /// A new handle owning `object`; `release` frees it.
    static func retain(_ object: AnyObject) -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(object).toOpaque())
    }

    /// The object behind `pointer`, if it is a `T`.
    static func object<T: AnyObject>(_ pointer: OpaquePointer?, as type: T.Type, _ argument: String) throws(BoundaryFailure) -> T {
        guard let pointer else { throw .invalidArgument(argument, "is NULL") }
        let object = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
        guard let typed = object as? T else { throw .invalidArgument(argument, "is not a \(T.self) handle") }
        return typed
    }

    /// Frees a handle made by `retain` (NULL is ignored).
    static func release(_ pointer: OpaquePointer?) {
        guard let pointer else { return }
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(pointer)).release()
    }
}
