extension LogReader {
    /// Whether some process holds the writer lock of the log in `directory` (an idle writer
    /// too). Takes no lock and never waits: a reader uses it to decide whether read models
    /// that are behind the log will be caught up by that writer.
    public static func writerIsLive(directory: String, fileSystem: any LogFileSystem = PosixFileSystem()) -> Bool {
        fileSystem.isLockedForWriting(directory: directory)
    }
}
