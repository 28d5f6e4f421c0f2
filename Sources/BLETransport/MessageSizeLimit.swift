/// The largest message either side of a proximity session accepts, in bytes. The peer is not
/// trusted: every assembler and frame decoder is given one of these, so a hostile peer cannot
/// make it allocate without bound.
public enum MessageSizeLimit {
    /// What the holder accepts from a reader, 256 KiB: far above any request, and the
    /// presentation engine's own default (`HolderConfiguration.maxMessageSize`).
    public static let request = 256 * 1024
    /// What the reader accepts from a holder, 4 MiB: a response carries every requested
    /// element, portraits and other images included.
    public static let response = 4 * 1024 * 1024
}
