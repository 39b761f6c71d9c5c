module libsandbox

go 1.19
