module example.com/usermod

go 1.22
