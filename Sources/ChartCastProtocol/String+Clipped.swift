extension String {
    /// The first `limit` Unicode scalars, for quoting input in an error message.
    ///
    /// Counted in scalars, not characters: one character can carry any number of combining
    /// marks, so `prefix(32)` of a hostile string can be kilobytes, and an error would then echo
    /// most of the message that caused it. 32 scalars are at most 128 bytes of UTF-8.
    func clipped(to limit: Int) -> String {
        String(String.UnicodeScalarView(unicodeScalars.prefix(limit)))
    }
}
