#pragma once
// Requests answered on the I/O thread that read them: a run's detail (GET /api/runs/<id>,
// runs.get), when the server's store reads without waiting (HttpServer::
// answer_quick_reads_inline: the embedded SQLite store, whose readers never wait on the
// writer or a network). Such a read costs about what writing its answer costs, which that
// thread does anyway; handing it to a request worker and back cost more than the read
// (two thread wake-ups: about 30 % of the request's CPU on a two-core machine).

#include <string_view>

namespace agentry::api {

/// GET "/api/runs/<id>" (the path as received, before percent-decoding).
bool is_quick_read(std::string_view http_method, std::string_view path);
/// "runs.get"
bool is_quick_method(std::string_view method);

}  // namespace agentry::api
